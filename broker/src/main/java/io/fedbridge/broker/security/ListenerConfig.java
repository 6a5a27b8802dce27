package io.fedbridge.broker.security;

import io.fedbridge.core.internal.Transports;
import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;

/**
 * What one listener URI means once its options are read, over the broker's {@link SecurityConfig} defaults:
 *
 * <pre>{@code
 * tcp://0.0.0.0:61613?maximumConnections=1000&maximumConnectionsPerAddress=20
 * ssl://0.0.0.0:61614?keyStore=/etc/fedbridge/broker.p12&keyStorePassword=...&needClientAuth=true
 * ws://0.0.0.0:61623/stomp?maximumConnections=1000
 * wss://0.0.0.0:61624/stomp?keyStore=/etc/fedbridge/broker.p12&keyStorePassword=...
 * }</pre>
 *
 * Options: {@code maximumConnections} and {@code maximumConnectionsPerAddress} ({@link ConnectionLimits}) on
 * {@code tcp://}, {@code ssl://}, {@code ws://} and {@code wss://}; on {@code ssl://} and {@code wss://} also every
 * {@link TlsConfig} option, applied over {@link SecurityConfig#tls()}. A {@code vm://} listener takes none and has no
 * limits. A {@code ws://} or {@code wss://} listener serves STOMP over WebSocket at its path ({@code /} if none).
 *
 * @param uri    the URI without its options
 * @param tls    the TLS settings of an {@code ssl://} or {@code wss://} listener (with a key store), else null
 * @param limits its connection limits
 */
public record ListenerConfig(CompositeUri uri, TlsConfig tls, ConnectionLimits limits) {

    /**
     * Reads a listener URI.
     *
     * @throws IllegalArgumentException for an unknown option (listing the valid ones), a TLS option on a
     *                                  listener without TLS, or an ssl:// or wss:// listener without a key store
     */
    public static ListenerConfig of(String uri, SecurityConfig security) {
        CompositeUri u;
        try {
            u = CompositeUri.parse(uri);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("listener " + e.getMessage(), e);
        }
        Transports.checkScheme(u);
        String context = "listener URI '" + u + "'";
        if (Transports.isLocal(u)) {
            UriOptions.bind(u.options(), context).finish();
            return new ListenerConfig(u, null, ConnectionLimits.ofDefaults());
        }
        boolean tlsScheme = Transports.isTls(u);
        if (!tlsScheme && TlsConfig.hasTlsOptions(u.options())) {
            throw new IllegalArgumentException("TLS options need an ssl:// or wss:// listener, but " + context + " is "
                    + u.scheme() + "://");
        }
        TlsConfig.Builder tlsBuilder = (security.tls() != null ? security.tls() : TlsConfig.ofDefaults()).toBuilder();
        ConnectionLimits.Builder limitsBuilder = security.connectionLimits().toBuilder();
        UriOptions binder = UriOptions.bind(u.options(), context);
        if (tlsScheme) {
            tlsBuilder.bind(binder);
        }
        limitsBuilder.bind(binder).finish();
        TlsConfig tls = null;
        if (tlsScheme) {
            try {
                tls = tlsBuilder.build();
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("invalid TLS options in " + context + ": " + e.getMessage(), e);
            }
            if (tls.keyStore() == null) {
                throw new IllegalArgumentException(context + " needs a keyStore (its certificate and private key): set "
                        + "keyStore and keyStorePassword on the URI or in the broker's SecurityConfig.tls");
            }
        }
        ConnectionLimits limits;
        try {
            limits = limitsBuilder.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid option in " + context + ": " + e.getMessage(), e);
        }
        return new ListenerConfig(u.withoutOptions(), tls, limits);
    }
}
