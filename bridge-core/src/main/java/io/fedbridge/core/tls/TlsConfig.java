package io.fedbridge.core.tls;

import io.fedbridge.core.uri.UriOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * TLS settings of one side of an {@code ssl://} link: a client (or bridge) connection, or a broker listener.
 * The same options work as URI query keys, each mapping to one builder method:
 *
 * <pre>{@code
 * ssl://broker-b:61614?trustStore=/etc/fedbridge/ca.p12&trustStorePassword=...            // client
 * ssl://0.0.0.0:61614?keyStore=/etc/fedbridge/broker.p12&keyStorePassword=...&needClientAuth=true  // listener
 *
 * TlsConfig tls = TlsConfig.builder().trustStore(Path.of("ca.p12")).trustStorePassword(pw).build();
 * }</pre>
 *
 * <table>
 *   <caption>Options</caption>
 *   <tr><th>key</th><th>meaning</th><th>default</th></tr>
 *   <tr><td>{@code keyStore}</td><td>this side's certificate and private key (a listener needs one; a client
 *       only for client-certificate authentication)</td><td>none</td></tr>
 *   <tr><td>{@code keyStorePassword}</td><td>password of the key store and of the key in it</td><td>none</td></tr>
 *   <tr><td>{@code keyStoreType}</td><td>{@code PKCS12} or {@code JKS}</td><td>{@code JKS} for a {@code .jks}
 *       file, else {@code PKCS12}</td></tr>
 *   <tr><td>{@code trustStore}</td><td>the certificates (CAs) this side trusts</td><td>the JDK's {@code cacerts}</td></tr>
 *   <tr><td>{@code trustStorePassword}</td><td>password of the trust store</td><td>none</td></tr>
 *   <tr><td>{@code trustStoreType}</td><td>as {@code keyStoreType}</td><td>by extension</td></tr>
 *   <tr><td>{@code needClientAuth}</td><td>listener: require a client certificate ({@link ClientAuth#NEED}); needs a
 *       {@code trustStore}, or the build fails</td><td>false</td></tr>
 *   <tr><td>{@code wantClientAuth}</td><td>listener: ask for one ({@link ClientAuth#WANT}); {@code needClientAuth}
 *       wins if both are set</td><td>false</td></tr>
 *   <tr><td>{@code enabledProtocols}</td><td>comma-separated, from {@code TLSv1.3}, {@code TLSv1.2}</td><td>both</td></tr>
 *   <tr><td>{@code enabledCipherSuites}</td><td>comma-separated JSSE suite names</td><td>the JDK's defaults</td></tr>
 *   <tr><td>{@code verifyHostName}</td><td>client: the server certificate must name the host of the URI
 *       (DNS or IP subject alternative name)</td><td>true</td></tr>
 *   <tr><td>{@code handshakeTimeout}</td><td>a handshake not finished by then fails (ms, or {@code 5s})</td><td>10 s</td></tr>
 * </table>
 *
 * <p>Passwords are never shown: {@link #toString()} masks them and URIs mask every {@code *Password} option.
 * Store files are read when a connection or listener starts, not here. Immutable and thread-safe.
 *
 * @param keyStore            key store file, or null
 * @param keyStorePassword    its password (also the key's), or null; never printed
 * @param keyStoreType        {@code PKCS12} or {@code JKS}; never null once built
 * @param trustStore          trust store file, or null for the JDK's default trust
 * @param trustStorePassword  its password, or null; never printed
 * @param trustStoreType      {@code PKCS12} or {@code JKS}; never null once built
 * @param clientAuth          whether a listener asks for client certificates; ignored by clients
 * @param enabledProtocols    a non-empty subset of {@link #SUPPORTED_PROTOCOLS}
 * @param enabledCipherSuites cipher suites to enable; empty for the JDK's defaults
 * @param verifyHostName      whether a client checks the server certificate against the host it dialled;
 *                            ignored by listeners
 * @param handshakeTimeout    how long a TLS handshake may take, positive
 */
public record TlsConfig(Path keyStore, String keyStorePassword, String keyStoreType, Path trustStore,
                        String trustStorePassword, String trustStoreType, ClientAuth clientAuth,
                        List<String> enabledProtocols, List<String> enabledCipherSuites, boolean verifyHostName,
                        Duration handshakeTimeout) {

    /** The protocols fedbridge allows, newest first; older ones are refused. */
    public static final List<String> SUPPORTED_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");
    /** Every URI/config key bound by {@link Builder#bind(UriOptions)}. */
    public static final Set<String> OPTION_NAMES = Set.of("keyStore", "keyStorePassword", "keyStoreType", "trustStore",
            "trustStorePassword", "trustStoreType", "needClientAuth", "wantClientAuth", "enabledProtocols",
            "enabledCipherSuites", "verifyHostName", "handshakeTimeout");
    private static final Set<String> STORE_TYPES = Set.of("PKCS12", "JKS");
    private static final Duration DEFAULT_HANDSHAKE_TIMEOUT = Duration.ofSeconds(10);
    private static final String MASK = "*****";

    public TlsConfig {
        keyStoreType = storeType("keyStoreType", keyStoreType, keyStore);
        trustStoreType = storeType("trustStoreType", trustStoreType, trustStore);
        if (keyStore == null && keyStorePassword != null) {
            throw new IllegalArgumentException("keyStorePassword must come with a keyStore, but no keyStore was given");
        }
        if (trustStore == null && trustStorePassword != null) {
            throw new IllegalArgumentException("trustStorePassword must come with a trustStore, but no trustStore was given");
        }
        clientAuth = clientAuth == null ? ClientAuth.NONE : clientAuth;
        if (clientAuth == ClientAuth.NEED && trustStore == null) {
            // The JDK's cacerts would vouch for client certificates: any certificate from any public CA would do.
            throw new IllegalArgumentException("needClientAuth requires trustStore (the CAs that issue client "
                    + "certificates), but no trustStore was given: the JDK's default CAs would accept a certificate from "
                    + "any public CA");
        }
        enabledProtocols = enabledProtocols == null || enabledProtocols.isEmpty() ? SUPPORTED_PROTOCOLS
                : List.copyOf(enabledProtocols);
        for (String p : enabledProtocols) {
            if (!SUPPORTED_PROTOCOLS.contains(p)) {
                throw new IllegalArgumentException("enabledProtocols must be among " + SUPPORTED_PROTOCOLS
                        + ", but had '" + p + "'");
            }
        }
        enabledCipherSuites = enabledCipherSuites == null ? List.of() : List.copyOf(enabledCipherSuites);
        handshakeTimeout = handshakeTimeout == null ? DEFAULT_HANDSHAKE_TIMEOUT : handshakeTimeout;
        if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout must be > 0, but was " + handshakeTimeout);
        }
    }

    private static String storeType(String name, String type, Path store) {
        if (type == null) {
            return store != null && store.getFileName() != null
                    && store.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".jks") ? "JKS" : "PKCS12";
        }
        String t = type.trim().toUpperCase(Locale.ROOT);
        if (!STORE_TYPES.contains(t)) {
            throw new IllegalArgumentException(name + " must be PKCS12 or JKS, but was '" + type + "'");
        }
        return t;
    }

    /** JDK trust, no key store, TLS 1.3 and 1.2, host-name verification on. */
    public static TlsConfig ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads TLS options (the keys in {@link #OPTION_NAMES}) from a URI query or properties.
     *
     * @param context what the options belong to, for messages, e.g. {@code "listener URI 'ssl://...'"} (masked)
     * @throws IllegalArgumentException for an unknown key or an invalid value, naming the key
     */
    public static TlsConfig fromOptions(Map<String, String> options, String context) {
        return builder().applyOptions(options, context).build();
    }

    /** A copy with {@code options} (TLS keys only) applied over these settings. */
    public TlsConfig withOptions(Map<String, String> options, String context) {
        return toBuilder().applyOptions(options, context).build();
    }

    /** Whether any of {@code options}' keys is a TLS option. */
    public static boolean hasTlsOptions(Map<String, String> options) {
        for (String k : options.keySet()) {
            if (OPTION_NAMES.contains(k)) {
                return true;
            }
        }
        return false;
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.keyStore = keyStore;
        b.keyStorePassword = keyStorePassword;
        b.keyStoreType = keyStoreType;
        b.trustStore = trustStore;
        b.trustStorePassword = trustStorePassword;
        b.trustStoreType = trustStoreType;
        b.clientAuth(clientAuth);
        b.enabledProtocols = enabledProtocols;
        b.enabledCipherSuites = enabledCipherSuites;
        b.verifyHostName = verifyHostName;
        b.handshakeTimeout = handshakeTimeout;
        return b;
    }

    @Override
    public String toString() {
        return "TlsConfig[keyStore=" + keyStore + ", keyStorePassword=" + (keyStorePassword == null ? null : MASK)
                + ", keyStoreType=" + keyStoreType + ", trustStore=" + trustStore + ", trustStorePassword="
                + (trustStorePassword == null ? null : MASK) + ", trustStoreType=" + trustStoreType + ", clientAuth="
                + clientAuth + ", enabledProtocols=" + enabledProtocols + ", enabledCipherSuites=" + enabledCipherSuites
                + ", verifyHostName=" + verifyHostName + ", handshakeTimeout=" + handshakeTimeout + "]";
    }

    /** Not thread-safe. Unset values take the defaults listed on {@link TlsConfig}. */
    public static final class Builder {
        private Path keyStore;
        private String keyStorePassword;
        private String keyStoreType;
        private Path trustStore;
        private String trustStorePassword;
        private String trustStoreType;
        private boolean needClientAuth;
        private boolean wantClientAuth;
        private List<String> enabledProtocols;
        private List<String> enabledCipherSuites;
        private boolean verifyHostName = true;
        private Duration handshakeTimeout;

        private Builder() {
        }

        /** Registers every TLS key with {@code options}; call {@link UriOptions#finish()} afterwards. */
        public UriOptions bind(UriOptions options) {
            return options
                    .value("keyStore", Path::of, this::keyStore)
                    .string("keyStorePassword", this::keyStorePassword)
                    .string("keyStoreType", this::keyStoreType)
                    .value("trustStore", Path::of, this::trustStore)
                    .string("trustStorePassword", this::trustStorePassword)
                    .string("trustStoreType", this::trustStoreType)
                    .bool("needClientAuth", this::needClientAuth)
                    .bool("wantClientAuth", this::wantClientAuth)
                    .list("enabledProtocols", ',', this::enabledProtocols)
                    .list("enabledCipherSuites", ',', this::enabledCipherSuites)
                    .bool("verifyHostName", this::verifyHostName)
                    .durationMillis("handshakeTimeout", this::handshakeTimeout);
        }

        Builder applyOptions(Map<String, String> options, String context) {
            bind(UriOptions.bind(options, context)).finish();
            return this;
        }

        public Builder keyStore(Path file) {
            this.keyStore = file;
            return this;
        }

        public Builder keyStorePassword(String password) {
            this.keyStorePassword = password;
            return this;
        }

        public Builder keyStoreType(String type) {
            this.keyStoreType = type;
            return this;
        }

        public Builder trustStore(Path file) {
            this.trustStore = file;
            return this;
        }

        public Builder trustStorePassword(String password) {
            this.trustStorePassword = password;
            return this;
        }

        public Builder trustStoreType(String type) {
            this.trustStoreType = type;
            return this;
        }

        public Builder clientAuth(ClientAuth mode) {
            this.needClientAuth = mode == ClientAuth.NEED;
            this.wantClientAuth = mode == ClientAuth.WANT;
            return this;
        }

        /** ActiveMQ's name for {@code clientAuth(NEED)}; false undoes it. */
        public Builder needClientAuth(boolean need) {
            this.needClientAuth = need;
            return this;
        }

        /** ActiveMQ's name for {@code clientAuth(WANT)}; false undoes it. */
        public Builder wantClientAuth(boolean want) {
            this.wantClientAuth = want;
            return this;
        }

        public Builder enabledProtocols(List<String> protocols) {
            this.enabledProtocols = protocols == null ? null : new ArrayList<>(protocols);
            return this;
        }

        public Builder enabledCipherSuites(List<String> suites) {
            this.enabledCipherSuites = suites == null ? null : new ArrayList<>(suites);
            return this;
        }

        public Builder verifyHostName(boolean verify) {
            this.verifyHostName = verify;
            return this;
        }

        public Builder handshakeTimeout(Duration timeout) {
            this.handshakeTimeout = timeout;
            return this;
        }

        public TlsConfig build() {
            ClientAuth auth = needClientAuth ? ClientAuth.NEED : wantClientAuth ? ClientAuth.WANT : ClientAuth.NONE;
            return new TlsConfig(keyStore, keyStorePassword, keyStoreType, trustStore, trustStorePassword,
                    trustStoreType, auth, enabledProtocols, enabledCipherSuites, verifyHostName, handshakeTimeout);
        }
    }
}
