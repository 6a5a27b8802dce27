package io.fedbridge.core;

import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a plain {@link StompConnection} connects. Build one from a URI such as
 * {@code tcp://127.0.0.1:61613?heartBeatSend=10s&login=app} with {@link #fromUri(String)}, or with the
 * builder.
 *
 * @param uri               {@code tcp://host:port}, {@code ssl://host:port}, {@code vm://name}, or STOMP over WebSocket
 *                          {@code ws://host:port/path} and {@code wss://host:port/path} (subprotocol {@code v12.stomp})
 * @param login             STOMP {@code login}, or null
 * @param passcode          STOMP {@code passcode}, or null; never printed
 * @param host              the {@code host} header (virtual host), default the URI's host
 * @param heartBeatSend     how often this client offers to send heart-beats (0 = never), default 10 s
 * @param heartBeatReceive  how often this client wants the broker's heart-beats (0 = none), default 10 s
 * @param connectTimeout    TCP connect plus CONNECT/CONNECTED handshake, default 10 s
 * @param closeTimeout      how long {@link StompConnection#close()} waits for the DISCONNECT receipt, default 5 s
 * @param limits            limits on frames received from the broker
 * @param clientId          the {@code client-id} header (durable subscriptions), or null
 * @param tls               TLS settings for an {@code ssl://} or {@code wss://} URI (default {@link TlsConfig#ofDefaults()}: JDK trust,
 *                          host-name verification on); always null for {@code tcp://} and {@code vm://}
 * @param connectHeaders    extra headers of the CONNECT frame, such as {@link FederationHeaders#PRODUCER_SECRET}
 *                          (never the standard ones this record sets); set with the builder only, not a URI option.
 *                          Their values are never printed: they may be secrets
 */
public record ClientConfig(CompositeUri uri, String login, String passcode, String host, Duration heartBeatSend,
                           Duration heartBeatReceive, Duration connectTimeout, Duration closeTimeout,
                           FrameLimits limits, String clientId, TlsConfig tls, Map<String, String> connectHeaders) {

    /** CONNECT headers {@link StompConnection} writes itself; {@code connectHeaders} may not name them. */
    private static final Set<String> STANDARD_CONNECT_HEADERS = Set.of(StompHeaders.ACCEPT_VERSION, StompHeaders.HOST,
            StompHeaders.HEART_BEAT, StompHeaders.LOGIN, StompHeaders.PASSCODE, "client-id");

    /** A plain-transport config, as before TLS existed: for {@code ssl://} the TLS defaults apply. */
    public ClientConfig(CompositeUri uri, String login, String passcode, String host, Duration heartBeatSend,
                        Duration heartBeatReceive, Duration connectTimeout, Duration closeTimeout,
                        FrameLimits limits, String clientId) {
        this(uri, login, passcode, host, heartBeatSend, heartBeatReceive, connectTimeout, closeTimeout, limits,
                clientId, null, null);
    }

    /** A config without extra CONNECT headers. */
    public ClientConfig(CompositeUri uri, String login, String passcode, String host, Duration heartBeatSend,
                        Duration heartBeatReceive, Duration connectTimeout, Duration closeTimeout,
                        FrameLimits limits, String clientId, TlsConfig tls) {
        this(uri, login, passcode, host, heartBeatSend, heartBeatReceive, connectTimeout, closeTimeout, limits,
                clientId, tls, null);
    }

    /** The URI options {@link #fromUri(String)} reads besides {@link TlsConfig#OPTION_NAMES}. */
    public static final Set<String> OPTION_NAMES = Set.of("login", "passcode", "host", "clientId", "heartBeatSend",
            "heartBeatReceive", "connectTimeout", "closeTimeout", "maxFrameSize");

    public ClientConfig {
        Objects.requireNonNull(uri, "uri");
        io.fedbridge.core.internal.Transports.checkScheme(uri);
        heartBeatSend = nonNegative("heartBeatSend", heartBeatSend, Duration.ofSeconds(10));
        heartBeatReceive = nonNegative("heartBeatReceive", heartBeatReceive, Duration.ofSeconds(10));
        connectTimeout = positive("connectTimeout", connectTimeout, Duration.ofSeconds(10));
        closeTimeout = positive("closeTimeout", closeTimeout, Duration.ofSeconds(5));
        limits = limits == null ? FrameLimits.ofDefaults() : limits;
        host = host == null ? uri.host() : host;
        if (io.fedbridge.core.internal.Transports.isTls(uri)) {
            tls = tls == null ? TlsConfig.ofDefaults() : tls;
        } else {
            tls = null; // a failover list may mix ssl:// and tcp:// brokers; TLS settings apply to the former only
        }
        connectHeaders = Collections.unmodifiableMap(new LinkedHashMap<>(connectHeaders == null ? Map.of() : connectHeaders));
        for (Map.Entry<String, String> e : connectHeaders.entrySet()) {
            if (STANDARD_CONNECT_HEADERS.contains(e.getKey())) {
                throw new IllegalArgumentException("connectHeaders must not set the standard CONNECT header '"
                        + e.getKey() + "' (use its own setting), but did");
            }
            if (e.getKey().isEmpty() || e.getValue() == null) {
                throw new IllegalArgumentException("connectHeaders must have non-empty names and non-null values, but had '"
                        + e.getKey() + "'");
            }
        }
    }

    private static Duration nonNegative(String name, Duration d, Duration dflt) {
        if (d == null) {
            return dflt;
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0, but was " + d);
        }
        return d;
    }

    private static Duration positive(String name, Duration d, Duration dflt) {
        if (d == null) {
            return dflt;
        }
        if (d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be > 0, but was " + d);
        }
        return d;
    }

    public static Builder builder(String uri) {
        return new Builder(CompositeUri.parse(uri).withoutOptions());
    }

    public static Builder builder(CompositeUri uri) {
        return new Builder(uri.withoutOptions());
    }

    /**
     * Parses a client URI. Options: {@code login}, {@code passcode}, {@code host}, {@code heartBeatSend},
     * {@code heartBeatReceive}, {@code connectTimeout}, {@code closeTimeout}, {@code clientId},
     * {@code maxFrameSize}, and for {@code ssl://} and {@code wss://} URIs the TLS options of {@link TlsConfig} (e.g.
     * {@code trustStore}, {@code trustStorePassword}, {@code keyStore}, {@code verifyHostName}). Unknown options
     * are an error listing these.
     */
    public static ClientConfig fromUri(String uri) {
        CompositeUri parsed = CompositeUri.parse(uri);
        Builder b = new Builder(parsed.withoutOptions());
        b.applyOptions(parsed, "client URI '" + parsed + "'");
        return b.build();
    }

    public static ClientConfig ofDefaults(String uri) {
        return fromUri(uri);
    }

    public Builder toBuilder() {
        Builder b = new Builder(uri);
        b.login = login;
        b.passcode = passcode;
        b.host = host.equals(uri.host()) ? null : host;
        b.heartBeatSend = heartBeatSend;
        b.heartBeatReceive = heartBeatReceive;
        b.connectTimeout = connectTimeout;
        b.closeTimeout = closeTimeout;
        b.limits = limits;
        b.clientId = clientId;
        b.tls = tls;
        b.connectHeaders.putAll(connectHeaders);
        return b;
    }

    @Override
    public String toString() {
        return "ClientConfig[uri=" + uri + ", login=" + login + ", passcode=" + (passcode == null ? null : "*****")
                + ", host=" + host + ", heartBeatSend=" + heartBeatSend + ", heartBeatReceive=" + heartBeatReceive
                + ", connectTimeout=" + connectTimeout + ", clientId=" + clientId + (tls == null ? "" : ", tls=" + tls)
                + (connectHeaders.isEmpty() ? "" : ", connectHeaders=" + connectHeaders.keySet()) + "]";
    }

    public static final class Builder {
        private CompositeUri uri;
        private String login;
        private String passcode;
        private String host;
        private Duration heartBeatSend;
        private Duration heartBeatReceive;
        private Duration connectTimeout;
        private Duration closeTimeout;
        private FrameLimits limits;
        private String clientId;
        private TlsConfig tls;
        private final Map<String, String> connectHeaders = new LinkedHashMap<>();

        private Builder(CompositeUri uri) {
            this.uri = uri;
        }

        void applyOptions(CompositeUri parsed, String context) {
            boolean tlsOptions = TlsConfig.hasTlsOptions(parsed.options());
            if (tlsOptions && !io.fedbridge.core.internal.Transports.isTls(parsed)) {
                throw new IllegalArgumentException("TLS options (" + String.join(", ", parsed.options().keySet().stream()
                        .filter(TlsConfig.OPTION_NAMES::contains).toList()) + ") need an ssl:// or wss:// URI, but " + context
                        + " is " + parsed.scheme() + "://");
            }
            TlsConfig.Builder tlsBuilder = tls == null ? TlsConfig.builder() : tls.toBuilder();
            bindOptions(tlsBuilder.bind(UriOptions.bind(parsed.options(), context))).finish();
            if (tlsOptions) {
                try {
                    tls = tlsBuilder.build();
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("invalid TLS options in " + context + ": " + e.getMessage(), e);
                }
            }
        }

        /**
         * Sets what {@code options} (URI options among {@link #OPTION_NAMES}, e.g. {@code host=/}) say, over what was
         * set before; an unknown option is an error naming {@code context} and listing the valid ones.
         */
        public Builder options(java.util.Map<String, String> options, String context) {
            bindOptions(UriOptions.bind(options, context)).finish();
            return this;
        }

        private UriOptions bindOptions(UriOptions u) {
            return u.string("login", this::login)
                    .string("passcode", this::passcode)
                    .string("host", this::host)
                    .string("clientId", this::clientId)
                    .durationMillis("heartBeatSend", this::heartBeatSend)
                    .durationMillis("heartBeatReceive", this::heartBeatReceive)
                    .durationMillis("connectTimeout", this::connectTimeout)
                    .durationMillis("closeTimeout", this::closeTimeout)
                    .integer("maxFrameSize", v -> limits = new FrameLimits(v, FrameLimits.DEFAULT_MAX_HEADERS, FrameLimits.DEFAULT_MAX_HEADER_LENGTH));
        }

        public Builder uri(String uri) {
            this.uri = CompositeUri.parse(uri).withoutOptions();
            return this;
        }

        public Builder login(String login) {
            this.login = login;
            return this;
        }

        public Builder passcode(String passcode) {
            this.passcode = passcode;
            return this;
        }

        public Builder host(String host) {
            this.host = host;
            return this;
        }

        public Builder heartBeatSend(Duration d) {
            this.heartBeatSend = d;
            return this;
        }

        public Builder heartBeatReceive(Duration d) {
            this.heartBeatReceive = d;
            return this;
        }

        /** Both directions at once; {@link Duration#ZERO} turns heart-beating off. */
        public Builder heartBeats(Duration d) {
            this.heartBeatSend = d;
            this.heartBeatReceive = d;
            return this;
        }

        public Builder connectTimeout(Duration d) {
            this.connectTimeout = d;
            return this;
        }

        public Builder closeTimeout(Duration d) {
            this.closeTimeout = d;
            return this;
        }

        public Builder limits(FrameLimits limits) {
            this.limits = limits;
            return this;
        }

        public Builder clientId(String clientId) {
            this.clientId = clientId;
            return this;
        }

        /** TLS settings, used when the URI is {@code ssl://} or {@code wss://} (ignored otherwise); null for the defaults. */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** An extra CONNECT header (replacing one of the same name); not one of the standard ones. */
        public Builder connectHeader(String name, String value) {
            connectHeaders.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(uri, login, passcode, host, heartBeatSend, heartBeatReceive, connectTimeout,
                    closeTimeout, limits, clientId, tls, connectHeaders);
        }
    }
}
