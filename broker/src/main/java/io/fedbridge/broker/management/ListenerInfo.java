package io.fedbridge.broker.management;

/**
 * A listener (properties only).
 *
 * @param uri        as configured, passwords masked
 * @param connectUri how clients reach it, port resolved; {@code vm://NAME} for the in-JVM one
 * @param scheme     {@code tcp}, {@code ssl}, {@code ws}, {@code wss} or {@code vm}
 * @param tls        whether it speaks TLS
 */
public record ListenerInfo(String uri, String connectUri, String scheme, boolean tls, long timestamp) {
}
