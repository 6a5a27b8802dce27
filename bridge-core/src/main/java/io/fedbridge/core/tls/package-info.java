/**
 * TLS for {@code ssl://} connections and listeners: {@link io.fedbridge.core.tls.TlsConfig}, the key store,
 * trust store, client-certificate and protocol options shared by clients, bridges and broker listeners.
 * TLS runs on the JDK's provider through Netty's {@code SslHandler}; only TLS 1.3 and TLS 1.2 are allowed.
 */
package io.fedbridge.core.tls;
