package io.fedbridge.core.bridge;

import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a bridge forwards between a local broker and a peer. Option names and meanings are ActiveMQ's
 * network-connector options where they exist; defaults differ where ActiveMQ's cause known trouble.
 *
 * @param name                          the bridge's name (logs, JMX); default {@code local->remote}
 * @param localUri                      the local broker, usually {@code vm://NAME}
 * @param remoteUri                     the peer, e.g. {@code tcp://10.0.0.2:61613}
 * @param networkTTL                    bridges a message or a consumer's demand may cross (default 1); sets both TTLs
 * @param messageTTL                    bridges a message may cross (default networkTTL)
 * @param consumerTTL                   bridges a consumer's demand may cross (default networkTTL)
 * @param duplex                        also forward from the peer to the local broker over the same connection
 * @param prefetchSize                  messages in flight per network subscription (default 1000)
 * @param decreaseNetworkConsumerPriority network subscriptions get priority -(hops), so local consumers and shorter
 *                                      routes are preferred (default true)
 * @param dynamicOnly                   accepted for ActiveMQ compatibility; fedbridge always creates demand only for
 *                                      active consumers
 * @param staticallyIncludedDestinations always forwarded, with or without demand (for peers without advisories)
 * @param dynamicallyIncludedDestinations demand counts only for these (wildcards); empty = all
 * @param excludedDestinations          never forwarded (wildcards); checked first
 * @param userName                      login on the peer (and the local broker), or null
 * @param password                      passcode; never printed
 * @param heartBeat                     heart-beat interval on both connections (default 5 s): a dead link is noticed within 3x
 * @param stallTimeout                  a link with demand and unreceipted forwards that sees no receipt for this long is
 *                                      reported STALLED (default 30 s)
 * @param conduitSubscriptions          identical remote subscriptions share one network subscription (default true)
 * @param filters                       conditional filters per destination pattern, applied in order (see {@link BridgeFilter})
 * @param tls                           TLS settings for an {@code ssl://} peer (trust store, client certificate, ...); null
 *                                      for the defaults. A peer URI's own TLS options ({@code ssl://b:61614?trustStore=...})
 *                                      override these for that peer. Applies to whichever of the bridge's connections is ssl://.
 *                                      Peer URIs found by multicast discovery never carry options (the agent drops any a
 *                                      peer announces), so for those peers these settings always apply.
 * @param federationSecret              the federation's shared secret (at least 16 characters), or null. The bridge proves
 *                                      it on both connections' CONNECT ({@code fedbridge-federate}, an HMAC, never the secret
 *                                      itself); a fedbridge broker with a secret trusts the federation headers of only
 *                                      such links. A broker's network connectors default to the broker's secret.
 */
public record BridgeConfig(String name, String localUri, String remoteUri, int networkTTL, int messageTTL, int consumerTTL,
                           boolean duplex, int prefetchSize, boolean decreaseNetworkConsumerPriority, boolean dynamicOnly,
                           List<String> staticallyIncludedDestinations, List<String> dynamicallyIncludedDestinations,
                           List<String> excludedDestinations, String userName, String password, Duration heartBeat,
                           Duration stallTimeout, boolean conduitSubscriptions, List<BridgeFilter.Entry> filters,
                           TlsConfig tls, String federationSecret) {

    /** Every option a network-connector URI may carry besides the discovery agent's own (TLS options included). */
    public static final Set<String> OPTION_NAMES = withTls(Set.of("name", "networkTTL", "messageTTL", "consumerTTL", "duplex",
            "prefetchSize", "decreaseNetworkConsumerPriority", "dynamicOnly", "staticallyIncludedDestinations",
            "dynamicallyIncludedDestinations", "excludedDestinations", "userName", "password", "heartBeat", "stallTimeout",
            "conduitSubscriptions", "federationSecret"));

    private static final java.util.regex.Pattern SECRET_OPTION =
            java.util.regex.Pattern.compile("([?&][^=&?]*(?i:password|passcode|secret)=)[^&,)]*");

    private static Set<String> withTls(Set<String> names) {
        Set<String> all = new java.util.HashSet<>(names);
        all.addAll(TlsConfig.OPTION_NAMES);
        return Set.copyOf(all);
    }

    /** The config without TLS settings, as before TLS existed. */
    public BridgeConfig(String name, String localUri, String remoteUri, int networkTTL, int messageTTL, int consumerTTL,
                        boolean duplex, int prefetchSize, boolean decreaseNetworkConsumerPriority, boolean dynamicOnly,
                        List<String> staticallyIncludedDestinations, List<String> dynamicallyIncludedDestinations,
                        List<String> excludedDestinations, String userName, String password, Duration heartBeat,
                        Duration stallTimeout, boolean conduitSubscriptions, List<BridgeFilter.Entry> filters) {
        this(name, localUri, remoteUri, networkTTL, messageTTL, consumerTTL, duplex, prefetchSize,
                decreaseNetworkConsumerPriority, dynamicOnly, staticallyIncludedDestinations, dynamicallyIncludedDestinations,
                excludedDestinations, userName, password, heartBeat, stallTimeout, conduitSubscriptions, filters, null, null);
    }

    /** The config without a federation secret. */
    public BridgeConfig(String name, String localUri, String remoteUri, int networkTTL, int messageTTL, int consumerTTL,
                        boolean duplex, int prefetchSize, boolean decreaseNetworkConsumerPriority, boolean dynamicOnly,
                        List<String> staticallyIncludedDestinations, List<String> dynamicallyIncludedDestinations,
                        List<String> excludedDestinations, String userName, String password, Duration heartBeat,
                        Duration stallTimeout, boolean conduitSubscriptions, List<BridgeFilter.Entry> filters, TlsConfig tls) {
        this(name, localUri, remoteUri, networkTTL, messageTTL, consumerTTL, duplex, prefetchSize,
                decreaseNetworkConsumerPriority, dynamicOnly, staticallyIncludedDestinations, dynamicallyIncludedDestinations,
                excludedDestinations, userName, password, heartBeat, stallTimeout, conduitSubscriptions, filters, tls, null);
    }

    /**
     * Every option a bridge's local or peer URI may carry: {@link io.fedbridge.core.ClientConfig#OPTION_NAMES}
     * (such as {@code host}, RabbitMQ's virtual host), TLS's, and {@link PeerProfile#OPTION_NAMES}; they apply to the
     * connection to that URI.
     */
    public static final Set<String> PEER_URI_OPTION_NAMES = peerUriOptionNames();

    private static Set<String> peerUriOptionNames() {
        Set<String> all = new java.util.HashSet<>(io.fedbridge.core.ClientConfig.OPTION_NAMES);
        all.addAll(TlsConfig.OPTION_NAMES);
        all.addAll(PeerProfile.OPTION_NAMES);
        return Set.copyOf(all);
    }

    public BridgeConfig {
        checkUri("localUri", localUri);
        checkUri("remoteUri", remoteUri);
        if (networkTTL < 1) {
            throw new IllegalArgumentException("networkTTL must be >= 1, but was " + networkTTL);
        }
        messageTTL = messageTTL == 0 ? networkTTL : messageTTL;
        consumerTTL = consumerTTL == 0 ? networkTTL : consumerTTL;
        if (messageTTL < 1) {
            throw new IllegalArgumentException("messageTTL must be >= 1, but was " + messageTTL);
        }
        if (consumerTTL < 1) {
            throw new IllegalArgumentException("consumerTTL must be >= 1, but was " + consumerTTL);
        }
        if (prefetchSize < 1) {
            throw new IllegalArgumentException("prefetchSize must be > 0, but was " + prefetchSize);
        }
        staticallyIncludedDestinations = checkDestinations("staticallyIncludedDestinations", staticallyIncludedDestinations);
        dynamicallyIncludedDestinations = checkDestinations("dynamicallyIncludedDestinations", dynamicallyIncludedDestinations);
        excludedDestinations = checkDestinations("excludedDestinations", excludedDestinations);
        heartBeat = heartBeat == null ? Duration.ofSeconds(5) : heartBeat;
        stallTimeout = stallTimeout == null ? Duration.ofSeconds(30) : stallTimeout;
        if (stallTimeout.isNegative() || stallTimeout.isZero()) {
            throw new IllegalArgumentException("stallTimeout must be > 0, but was " + stallTimeout);
        }
        name = name == null ? localUri + "->" + remoteUri : name;
        // Names are built from peer URIs, which may carry a trustStorePassword: names are logged, so mask it.
        name = SECRET_OPTION.matcher(name).replaceAll("$1" + CompositeUri.MASK);
        filters = filters == null ? List.of() : List.copyOf(filters);
        io.fedbridge.core.internal.FederationProof.checkSecret("federationSecret", federationSecret);
    }

    /** This config with {@code secret} as its federation secret if it has none of its own. */
    public BridgeConfig withDefaultFederationSecret(String secret) {
        return federationSecret != null || secret == null ? this : toBuilder().federationSecret(secret).build();
    }

    /** Whether any configured filter may block in {@link BridgeFilter#beforeForward}. */
    public boolean filtersMayBlock() {
        for (BridgeFilter.Entry e : filters) {
            if (e.filter().mayBlock()) {
                return true;
            }
        }
        return false;
    }

    /** The filters that apply to {@code destination}, in order. */
    public List<BridgeFilter> filtersFor(String destination) {
        if (filters.isEmpty()) {
            return List.of();
        }
        List<BridgeFilter> l = new ArrayList<>();
        for (BridgeFilter.Entry e : filters) {
            if (e.applies(destination)) {
                l.add(e.filter());
            }
        }
        return l;
    }

    /** A URI's options must be known ({@link #PEER_URI_OPTION_NAMES}), and its dialect options valid. */
    private static void checkUri(String what, String uri) {
        CompositeUri u = CompositeUri.parse(uri);
        String context = what + " '" + u + "'";
        UriOptions binder = UriOptions.bind(u.options(), context);
        for (String name : PEER_URI_OPTION_NAMES) {
            binder.string(name, v -> { });
        }
        binder.finish();
        PeerProfile.fromOptions(u.options(), context);
    }

    private static List<String> checkDestinations(String option, List<String> l) {
        if (l == null) {
            return List.of();
        }
        for (String d : l) {
            if (!(d.startsWith("/queue/") || d.startsWith("/topic/"))) {
                throw new IllegalArgumentException(option + " must hold destinations such as /queue/orders or /topic/prices.>, but had '" + d + "'");
            }
        }
        return List.copyOf(l);
    }

    public static Builder builder(String localUri, String remoteUri) {
        return new Builder(localUri, remoteUri);
    }

    public Builder toBuilder() {
        Builder b = new Builder(localUri, remoteUri);
        b.name = name;
        b.networkTTL = networkTTL;
        b.messageTTL = messageTTL;
        b.consumerTTL = consumerTTL;
        b.duplex = duplex;
        b.prefetchSize = prefetchSize;
        b.decreaseNetworkConsumerPriority = decreaseNetworkConsumerPriority;
        b.dynamicOnly = dynamicOnly;
        b.staticIncludes.addAll(staticallyIncludedDestinations);
        b.dynamicIncludes.addAll(dynamicallyIncludedDestinations);
        b.excludes.addAll(excludedDestinations);
        b.userName = userName;
        b.password = password;
        b.heartBeat = heartBeat;
        b.stallTimeout = stallTimeout;
        b.conduitSubscriptions = conduitSubscriptions;
        b.filters.addAll(filters);
        b.tls = tls;
        b.federationSecret = federationSecret;
        return b;
    }

    @Override
    public String toString() {
        return "BridgeConfig[" + name + ", networkTTL=" + networkTTL + ", messageTTL=" + messageTTL + ", consumerTTL="
                + consumerTTL + ", duplex=" + duplex + ", prefetchSize=" + prefetchSize + ", userName=" + userName
                + ", password=" + (password == null ? null : "*****")
                + (federationSecret == null ? "" : ", federationSecret=*****") + (tls == null ? "" : ", tls=" + tls) + "]";
    }

    public static final class Builder {
        private final String localUri;
        private String remoteUri;
        private String name;
        private int networkTTL = 1;
        private int messageTTL;
        private int consumerTTL;
        private boolean duplex;
        private int prefetchSize = 1000;
        private boolean decreaseNetworkConsumerPriority = true;
        private boolean dynamicOnly;
        private final List<String> staticIncludes = new ArrayList<>();
        private final List<String> dynamicIncludes = new ArrayList<>();
        private final List<String> excludes = new ArrayList<>();
        private String userName;
        private String password;
        private Duration heartBeat;
        private Duration stallTimeout;
        private boolean conduitSubscriptions = true;
        private final List<BridgeFilter.Entry> filters = new ArrayList<>();
        private TlsConfig tls;
        private String federationSecret;

        private Builder(String localUri, String remoteUri) {
            this.localUri = localUri;
            this.remoteUri = remoteUri;
        }

        /**
         * Binds the bridge options among {@code options} (a network-connector URI's query) and returns the
         * ones left over, for the discovery agent.
         */
        public Map<String, String> bind(Map<String, String> options, String context) {
            Map<String, String> mine = new java.util.LinkedHashMap<>();
            Map<String, String> rest = new java.util.LinkedHashMap<>();
            options.forEach((k, v) -> (OPTION_NAMES.contains(k) ? mine : rest).put(k, v));
            TlsConfig.Builder tlsBuilder = tls == null ? TlsConfig.builder() : tls.toBuilder();
            tlsBuilder.bind(UriOptions.bind(mine, context))
                    .string("name", v -> name = v)
                    .integer("networkTTL", v -> networkTTL = v)
                    .integer("messageTTL", v -> messageTTL = v)
                    .integer("consumerTTL", v -> consumerTTL = v)
                    .bool("duplex", v -> duplex = v)
                    .integer("prefetchSize", v -> prefetchSize = v)
                    .bool("decreaseNetworkConsumerPriority", v -> decreaseNetworkConsumerPriority = v)
                    .bool("dynamicOnly", v -> dynamicOnly = v)
                    .list("staticallyIncludedDestinations", ',', staticIncludes::addAll)
                    .list("dynamicallyIncludedDestinations", ',', dynamicIncludes::addAll)
                    .list("excludedDestinations", ',', excludes::addAll)
                    .string("userName", v -> userName = v)
                    .string("password", v -> password = v)
                    .durationMillis("heartBeat", v -> heartBeat = v)
                    .durationMillis("stallTimeout", v -> stallTimeout = v)
                    .bool("conduitSubscriptions", v -> conduitSubscriptions = v)
                    .string("federationSecret", v -> federationSecret = v)
                    .finish();
            if (TlsConfig.hasTlsOptions(mine)) {
                try {
                    tls = tlsBuilder.build();
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("invalid TLS options in " + context + ": " + e.getMessage(), e);
                }
            }
            return rest;
        }

        public Builder remoteUri(String uri) {
            remoteUri = uri;
            return this;
        }

        public Builder name(String v) {
            name = v;
            return this;
        }

        public Builder networkTTL(int v) {
            networkTTL = v;
            return this;
        }

        public Builder messageTTL(int v) {
            messageTTL = v;
            return this;
        }

        public Builder consumerTTL(int v) {
            consumerTTL = v;
            return this;
        }

        public Builder duplex(boolean v) {
            duplex = v;
            return this;
        }

        public Builder prefetchSize(int v) {
            prefetchSize = v;
            return this;
        }

        public Builder decreaseNetworkConsumerPriority(boolean v) {
            decreaseNetworkConsumerPriority = v;
            return this;
        }

        public Builder dynamicOnly(boolean v) {
            dynamicOnly = v;
            return this;
        }

        public Builder staticallyIncludedDestination(String d) {
            staticIncludes.add(d);
            return this;
        }

        public Builder dynamicallyIncludedDestination(String d) {
            dynamicIncludes.add(d);
            return this;
        }

        public Builder excludedDestination(String d) {
            excludes.add(d);
            return this;
        }

        public Builder userName(String v) {
            userName = v;
            return this;
        }

        public Builder password(String v) {
            password = v;
            return this;
        }

        public Builder heartBeat(Duration v) {
            heartBeat = v;
            return this;
        }

        public Builder stallTimeout(Duration v) {
            stallTimeout = v;
            return this;
        }

        public Builder conduitSubscriptions(boolean v) {
            conduitSubscriptions = v;
            return this;
        }

        /** TLS settings for {@code ssl://} peers; null for the defaults (JDK trust, host-name verification on). */
        public Builder tls(TlsConfig v) {
            tls = v;
            return this;
        }

        /** Adds a filter for destinations matching {@code pattern} ({@code >} = all). */
        public Builder filter(String pattern, BridgeFilter filter) {
            filters.add(new BridgeFilter.Entry(pattern, filter));
            return this;
        }

        public BridgeConfig build() {
            return new BridgeConfig(name, localUri, remoteUri, networkTTL, messageTTL, consumerTTL, duplex, prefetchSize,
                    decreaseNetworkConsumerPriority, dynamicOnly, staticIncludes, dynamicIncludes, excludes, userName,
                    password, heartBeat, stallTimeout, conduitSubscriptions, filters, tls, federationSecret);
        }

        /** The federation's shared secret (at least 16 characters); see {@link BridgeConfig#federationSecret()}. */
        public Builder federationSecret(String secret) {
            this.federationSecret = secret;
            return this;
        }
    }

    static Set<String> sorted(Set<String> s) {
        return new TreeSet<>(s);
    }
}
