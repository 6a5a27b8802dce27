package io.fedbridge.broker.management;

import java.util.Map;

/**
 * A message waiting in a queue, as {@code browse} shows it (it stays in the queue).
 *
 * @param headers        its headers as stored (the first of a repeated header)
 * @param body           the body as UTF-8 text, cut at {@code maxBody} characters
 * @param bodyLength     the body's size in bytes
 * @param bodyTruncated  whether {@code body} was cut
 */
public record BrowsedMessage(String messageId, String destination, Map<String, String> headers, String body, int bodyLength,
                             boolean bodyTruncated, int redeliveryCount, boolean persistent, int priority) {
    public BrowsedMessage {
        headers = Map.copyOf(headers);
    }
}
