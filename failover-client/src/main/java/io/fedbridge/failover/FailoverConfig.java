package io.fedbridge.failover;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a {@link FailoverClient} connects: the brokers, the reconnect policy and the limits. Build one from a URI with
 * {@link #fromUri(String)}, or with the {@link #builder()}; each URI option maps to the builder method of the same name.
 *
 * <pre>{@code
 * FailoverConfig c = FailoverConfig.fromUri(
 *         "failover:(tcp://a:61613,tcp://b:61613)?randomize=false&timeout=5000&nested.login=app&nested.passcode=secret");
 * FailoverConfig same = FailoverConfig.builder().uri("tcp://a:61613").uri("tcp://b:61613")
 *         .randomize(false).timeout(Duration.ofSeconds(5)).nested("login", "app").nested("passcode", "secret").build();
 * }</pre>
 *
 * <p>A plain {@code tcp://host:port?…} or {@code vm://NAME} URI is one broker without failover: it is the same as
 * {@code failover:(uri)?maxReconnectAttempts=0&startupMaxReconnectAttempts=0} (one connect round, no retry).
 *
 * <table>
 * <caption>Options (ActiveMQ's names and meanings; differences in bold)</caption>
 * <tr><th>option</th><th>default</th><th>meaning</th></tr>
 * <tr><td>randomize</td><td>true</td><td>shuffle the brokers before each connect round</td></tr>
 * <tr><td>initialReconnectDelay, maxReconnectDelay, useExponentialBackOff, reconnectDelayExponent,
 *     maxReconnectAttempts, startupMaxReconnectAttempts</td><td>10 ms, 30 s, true, 2, -1, -1</td>
 *     <td>see {@link FailoverReconnectConfig}</td></tr>
 * <tr><td>timeout</td><td><b>30 s</b> (ActiveMQ: -1)</td><td>how long a send may wait for a connection (or for room
 *     in the send buffer) before it fails with {@link FailoverTimeoutException}; -1 waits forever</td></tr>
 * <tr><td>maxCacheSize</td><td>4 MiB</td><td>bytes of sends awaiting their receipt (kept to be resent after a
 *     failover); <b>a full buffer makes senders wait, it never drops a send</b></td></tr>
 * <tr><td>priorityBackup</td><td>false</td><td>prefer the priority brokers: connect to them first and move back to
 *     one as soon as it is reachable again</td></tr>
 * <tr><td>priorityURIs</td><td>the first URI</td><td>the priority brokers (comma-separated), with priorityBackup</td></tr>
 * <tr><td>backup</td><td>false</td><td>keep connections to other brokers open, ready to take over at once</td></tr>
 * <tr><td>backupPoolSize</td><td>1</td><td>how many such backup connections</td></tr>
 * <tr><td>updateURIsSupported</td><td>true</td><td>add the brokers a broker announces as its federation peers
 *     ({@code fedbridge-cluster-uris}) to the list</td></tr>
 * <tr><td>rebalanceUpdateURIs</td><td>true</td><td>move to another broker when an announcement asks clients to
 *     rebalance</td></tr>
 * <tr><td>updateURIsAllowed</td><td>any</td><td><b>fedbridge's</b>: {@code host:port} glob patterns
 *     (comma-separated) a learned broker must match to be used; see {@link FailoverClusterConfig}</td></tr>
 * <tr><td>updateURIsCredentials</td><td>false</td><td><b>fedbridge's</b>: send the configured login and passcode to
 *     learned brokers too</td></tr>
 * <tr><td>heartBeatSend, heartBeatReceive</td><td>10 s, 10 s</td><td>STOMP heart-beats on every connection; a
 *     silent broker counts as failed after 3 receive intervals; 0 = off</td></tr>
 * <tr><td>clientId</td><td>none</td><td>the {@code client-id} sent on every connection (durable subscriptions)</td></tr>
 * <tr><td>auditDepth</td><td>10000</td><td>per subscription, to drop copies after a failover: ranges of acknowledged
 *     message numbers (one per producer and destination, plus one per gap) and single ids (a foreign broker's) remembered;
 *     a copy of a producer's message is recognised however many came between (ids whose ACK the broker has not
 *     confirmed are kept regardless). See docs/failover-client.md, "Exactly once"</td></tr>
 * <tr><td>nested.*</td><td></td><td>transport options for every broker, e.g. {@code nested.login=app},
 *     {@code nested.connectTimeout=2s}; any option of {@link ClientConfig#fromUri} except {@code clientId} and the
 *     heart-beats. A broker URI's own options ({@code tcp://a:61613?login=x}) override them for that broker.</td></tr>
 * </table>
 * Durations are milliseconds ({@code 5000}) or carry a unit ({@code 5s}, {@code 250ms}, ISO-8601). Unknown options are
 * an error that lists the valid ones.
 *
 * @param uris                the brokers, in order; each a plain {@code tcp://}, {@code ssl://} or {@code vm://} URI, possibly with
 *                            transport options
 * @param randomize           shuffle the brokers before each connect round
 * @param reconnect           the back-off and the give-up limits
 * @param timeout             how long a send waits without a connection or without buffer room; {@link #NO_TIMEOUT}
 *                            (any negative value) waits forever
 * @param maxCacheSize        bytes of sends awaiting their receipt, at least 1
 * @param priorityBackup      prefer {@code priorityURIs} and return to them when they come back
 * @param priorityURIs        the priority brokers (each one of {@code uris}); empty = the first of {@code uris}
 * @param backup              hold ready connections to other brokers
 * @param backupPoolSize      how many, at least 1
 * @param cluster             what to take from the federation's announcements of its brokers (updateURIsSupported,
 *                            rebalanceUpdateURIs, updateURIsAllowed, updateURIsCredentials)
 * @param heartBeatSend       heart-beat offer, sending side; 0 = none
 * @param heartBeatReceive    heart-beat offer, receiving side; 0 = none
 * @param clientId            the {@code client-id} header, or null
 * @param auditDepth          ranges of acknowledged message numbers and single ids remembered per subscription, at least 1
 * @param nested              transport options applied to every broker connection ({@code nested.*})
 */
public record FailoverConfig(List<CompositeUri> uris, boolean randomize, FailoverReconnectConfig reconnect,
                             Duration timeout, long maxCacheSize, boolean priorityBackup, List<CompositeUri> priorityURIs,
                             boolean backup, int backupPoolSize, FailoverClusterConfig cluster, Duration heartBeatSend, Duration heartBeatReceive, String clientId, int auditDepth,
                             Map<String, String> nested) {

    /** The {@code timeout} that waits forever: -1 ms, as ActiveMQ writes it. */
    public static final Duration NO_TIMEOUT = Duration.ofMillis(-1);

    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);
    public static final long DEFAULT_MAX_CACHE_SIZE = 4L * 1024 * 1024;
    public static final int DEFAULT_AUDIT_DEPTH = 10_000;

    /** Options of a broker connection that only the failover URI may set, since they must be equal on every broker. */
    private static final Set<String> FAILOVER_LEVEL = Set.of("clientId", "heartBeatSend", "heartBeatReceive");

    public FailoverConfig {
        uris = List.copyOf(Objects.requireNonNull(uris, "uris"));
        if (uris.isEmpty()) {
            throw new IllegalArgumentException("uris must name at least one broker, but was empty");
        }
        Set<CompositeUri> seen = new HashSet<>();
        for (CompositeUri u : uris) {
            Objects.requireNonNull(u, "uri");
            if (u.isComposite()) {
                throw new IllegalArgumentException("uris must be plain broker URIs (tcp://, ssl://, vm://), but '" + u + "' is composite");
            }
            if (!seen.add(u.withoutOptions())) {
                throw new IllegalArgumentException("uris must be distinct, but '" + u.withoutOptions() + "' appears twice");
            }
        }
        reconnect = reconnect == null ? FailoverReconnectConfig.ofDefaults() : reconnect;
        cluster = cluster == null ? FailoverClusterConfig.ofDefaults() : cluster;
        timeout = timeout == null ? DEFAULT_TIMEOUT : timeout.isNegative() ? NO_TIMEOUT : timeout;
        if (maxCacheSize < 1) {
            throw new IllegalArgumentException("maxCacheSize must be >= 1 byte, but was " + maxCacheSize);
        }
        priorityURIs = List.copyOf(priorityURIs == null ? List.of() : priorityURIs);
        if (!priorityURIs.isEmpty() && !priorityBackup) {
            throw new IllegalArgumentException("priorityURIs " + priorityURIs + " need priorityBackup=true");
        }
        for (CompositeUri p : priorityURIs) {
            if (!seen.contains(p.withoutOptions())) {
                throw new IllegalArgumentException("priorityURIs must each be one of the brokers " + withoutOptions(uris)
                        + ", but '" + p + "' is not");
            }
        }
        if (backupPoolSize < 1) {
            throw new IllegalArgumentException("backupPoolSize must be >= 1, but was " + backupPoolSize);
        }
        heartBeatSend = nonNegative("heartBeatSend", heartBeatSend);
        heartBeatReceive = nonNegative("heartBeatReceive", heartBeatReceive);
        if (clientId != null && clientId.isBlank()) {
            throw new IllegalArgumentException("clientId must not be blank, but was '" + clientId + "'");
        }
        if (auditDepth < 1) {
            throw new IllegalArgumentException("auditDepth must be >= 1, but was " + auditDepth);
        }
        nested = Collections.unmodifiableMap(new LinkedHashMap<>(nested == null ? Map.of() : nested));
        for (String key : nested.keySet()) {
            if (FAILOVER_LEVEL.contains(key)) {
                throw new IllegalArgumentException("'" + key + "' is a failover option: set it once as '" + key
                        + "', not as 'nested." + key + "'");
            }
        }
        for (CompositeUri u : uris) {
            for (String key : u.options().keySet()) {
                if (FAILOVER_LEVEL.contains(key)) {
                    throw new IllegalArgumentException("'" + key + "' is a failover option: set it on the failover URI, "
                            + "not on the broker URI '" + u + "'");
                }
            }
            clientConfig(u, nested, heartBeatSend, heartBeatReceive, clientId);
        }
    }

    private static Duration nonNegative(String name, Duration d) {
        if (d == null) {
            return Duration.ofSeconds(10);
        }
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0, but was " + d);
        }
        return d;
    }

    private static List<CompositeUri> withoutOptions(List<CompositeUri> uris) {
        return uris.stream().map(CompositeUri::withoutOptions).toList();
    }

    /**
     * Parses {@code failover:(uri,uri,...)?options} or a plain {@code tcp://} / {@code vm://} URI (one broker, no
     * failover).
     *
     * @throws IllegalArgumentException for a malformed URI, a bad value, or an unknown option (listing the valid ones)
     */
    public static FailoverConfig fromUri(String uri) {
        CompositeUri parsed = CompositeUri.parse(uri);
        Builder b = new Builder();
        if (parsed.scheme().equals("failover")) {
            if (!parsed.isComposite()) {
                throw new IllegalArgumentException("failover URI '" + parsed + "' must list its brokers, e.g. "
                        + "failover:(tcp://a:61613,tcp://b:61613)");
            }
            parsed.components().forEach(b::uri);
            b.bind(parsed.options(), "failover URI '" + parsed + "'");
            return b.build();
        }
        if (parsed.isComposite()) {
            throw new IllegalArgumentException("unsupported scheme '" + parsed.scheme() + "' in URI '" + parsed
                    + "': expected failover:(...) or a plain tcp://, ssl:// or vm:// URI");
        }
        b.uri(parsed).maxReconnectAttempts(0).startupMaxReconnectAttempts(0);
        try {
            return b.build();
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("broker URI") && e.getMessage().contains("unknown option")) {
                throw new IllegalArgumentException(e.getMessage() + "; failover options go on a failover URI, e.g. "
                        + "failover:(" + parsed.withoutOptions() + ")?randomize=false", e);
            }
            throw e;
        }
    }

    /** A config with every default for these brokers ({@code tcp://host:port} or {@code vm://NAME}). */
    public static FailoverConfig ofDefaults(String... uris) {
        Builder b = builder();
        for (String u : uris) {
            b.uri(u);
        }
        return b.build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The option names a failover URI accepts, sorted ({@code nested.*} for the transport options). */
    public static Set<String> optionNames() {
        UriOptions o = UriOptions.bind(Map.of(), "option list");
        new Builder().bind(o);
        return o.validKeys();
    }

    public Builder toBuilder() {
        Builder b = new Builder();
        b.uris.addAll(uris);
        b.randomize = randomize;
        b.reconnect = reconnect.toBuilder();
        b.timeout = timeout;
        b.maxCacheSize = maxCacheSize;
        b.priorityBackup = priorityBackup;
        b.priorityURIs.addAll(priorityURIs);
        b.backup = backup;
        b.backupPoolSize = backupPoolSize;
        b.updateURIsSupported = cluster.updateURIsSupported();
        b.rebalanceUpdateURIs = cluster.rebalanceUpdateURIs();
        b.updateURIsAllowed = cluster.updateURIsAllowed();
        b.updateURIsCredentials = cluster.updateURIsCredentials();
        b.heartBeatSend = heartBeatSend;
        b.heartBeatReceive = heartBeatReceive;
        b.clientId = clientId;
        b.auditDepth = auditDepth;
        b.nested.putAll(nested);
        return b;
    }

    /** Learn brokers from the federation's announcements: {@link FailoverClusterConfig#updateURIsSupported()}. */
    public boolean updateURIsSupported() {
        return cluster.updateURIsSupported();
    }

    /** Obey an announcement's request to rebalance: {@link FailoverClusterConfig#rebalanceUpdateURIs()}. */
    public boolean rebalanceUpdateURIs() {
        return cluster.rebalanceUpdateURIs();
    }

    /** Whether sends wait forever for a connection ({@code timeout=-1}). */
    public boolean waitsForever() {
        return timeout.isNegative();
    }

    /** The priority brokers: {@link #priorityURIs()}, or the first broker if none are named. */
    public List<CompositeUri> effectivePriorityURIs() {
        return priorityURIs.isEmpty() ? List.of(uris.get(0)) : priorityURIs;
    }

    /**
     * How to connect to {@code broker} (one of {@link #uris()} or a broker learned from the federation): its own
     * options over {@link #nested()}, plus the failover-level heart-beats and client id.
     *
     * @throws IllegalArgumentException if its options are invalid
     */
    public ClientConfig clientConfig(CompositeUri broker) {
        return clientConfig(broker, nested, heartBeatSend, heartBeatReceive, clientId);
    }

    private static ClientConfig clientConfig(CompositeUri broker, Map<String, String> nested, Duration heartBeatSend,
                                             Duration heartBeatReceive, String clientId) {
        Map<String, String> merged = new LinkedHashMap<>(nested);
        merged.putAll(broker.options());
        ClientConfig c;
        try {
            c = ClientConfig.fromUri(broker.withOptions(merged).toUnmaskedString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("broker URI '" + broker + "': " + e.getMessage(), e);
        }
        return c.toBuilder().heartBeatSend(heartBeatSend).heartBeatReceive(heartBeatReceive).clientId(clientId).build();
    }

    @Override
    public String toString() {
        Map<String, String> shownNested = new LinkedHashMap<>();
        nested.forEach((k, v) -> shownNested.put(k, CompositeUri.isSecretOption(k) ? CompositeUri.MASK : v));
        return "FailoverConfig[uris=" + uris + ", randomize=" + randomize + ", reconnect=" + reconnect
                + ", timeout=" + (waitsForever() ? "forever" : timeout) + ", maxCacheSize=" + maxCacheSize
                + ", priorityBackup=" + priorityBackup + ", priorityURIs=" + priorityURIs + ", backup=" + backup
                + ", backupPoolSize=" + backupPoolSize + ", cluster=" + cluster + ", heartBeatSend=" + heartBeatSend
                + ", heartBeatReceive=" + heartBeatReceive + ", clientId=" + clientId + ", auditDepth=" + auditDepth
                + ", nested=" + shownNested + "]";
    }

    /** Builds a {@link FailoverConfig}; every method but {@link #uri} and {@link #reconnect} is one URI option. */
    public static final class Builder {
        private final List<CompositeUri> uris = new ArrayList<>();
        private boolean randomize = true;
        private FailoverReconnectConfig.Builder reconnect = FailoverReconnectConfig.builder();
        private Duration timeout = DEFAULT_TIMEOUT;
        private long maxCacheSize = DEFAULT_MAX_CACHE_SIZE;
        private boolean priorityBackup;
        private final List<CompositeUri> priorityURIs = new ArrayList<>();
        private boolean backup;
        private int backupPoolSize = 1;
        private boolean updateURIsSupported = true;
        private boolean rebalanceUpdateURIs = true;
        private List<String> updateURIsAllowed = List.of();
        private boolean updateURIsCredentials;
        private Duration heartBeatSend = Duration.ofSeconds(10);
        private Duration heartBeatReceive = Duration.ofSeconds(10);
        private String clientId;
        private int auditDepth = DEFAULT_AUDIT_DEPTH;
        private final Map<String, String> nested = new LinkedHashMap<>();

        private Builder() {
        }

        private void bind(Map<String, String> options, String context) {
            UriOptions o = UriOptions.bind(options, context);
            bind(o);
            o.finish();
        }

        private void bind(UriOptions o) {
            o.bool("randomize", this::randomize)
                    .durationMillis("initialReconnectDelay", this::initialReconnectDelay)
                    .durationMillis("maxReconnectDelay", this::maxReconnectDelay)
                    .bool("useExponentialBackOff", this::useExponentialBackOff)
                    .doubleValue("reconnectDelayExponent", this::reconnectDelayExponent)
                    .integer("maxReconnectAttempts", this::maxReconnectAttempts)
                    .integer("startupMaxReconnectAttempts", this::startupMaxReconnectAttempts)
                    .durationMillis("timeout", this::timeout)
                    .longValue("maxCacheSize", this::maxCacheSize)
                    .bool("priorityBackup", this::priorityBackup)
                    .list("priorityURIs", ',', this::priorityURIs)
                    .bool("backup", this::backup)
                    .integer("backupPoolSize", this::backupPoolSize)
                    .bool("updateURIsSupported", this::updateURIsSupported)
                    .bool("rebalanceUpdateURIs", this::rebalanceUpdateURIs)
                    .list("updateURIsAllowed", ',', this::updateURIsAllowed)
                    .bool("updateURIsCredentials", this::updateURIsCredentials)
                    .durationMillis("heartBeatSend", this::heartBeatSend)
                    .durationMillis("heartBeatReceive", this::heartBeatReceive)
                    .string("clientId", this::clientId)
                    .integer("auditDepth", this::auditDepth)
                    .prefixed("nested.", options -> options.forEach(this::nested));
        }

        /** Adds a broker, {@code tcp://host:port} or {@code vm://NAME}, optionally with transport options. */
        public Builder uri(String uri) {
            return uri(CompositeUri.parse(uri));
        }

        public Builder uri(CompositeUri uri) {
            uris.add(Objects.requireNonNull(uri, "uri"));
            return this;
        }

        /** Replaces the brokers. */
        public Builder uris(List<String> all) {
            uris.clear();
            all.forEach(this::uri);
            return this;
        }

        public Builder randomize(boolean b) {
            randomize = b;
            return this;
        }

        /** Replaces every back-off setting at once. */
        public Builder reconnect(FailoverReconnectConfig r) {
            reconnect = r.toBuilder();
            return this;
        }

        public Builder initialReconnectDelay(Duration d) {
            reconnect.initialReconnectDelay(d);
            return this;
        }

        public Builder maxReconnectDelay(Duration d) {
            reconnect.maxReconnectDelay(d);
            return this;
        }

        public Builder useExponentialBackOff(boolean b) {
            reconnect.useExponentialBackOff(b);
            return this;
        }

        public Builder reconnectDelayExponent(double e) {
            reconnect.reconnectDelayExponent(e);
            return this;
        }

        public Builder maxReconnectAttempts(int n) {
            reconnect.maxReconnectAttempts(n);
            return this;
        }

        public Builder startupMaxReconnectAttempts(int n) {
            reconnect.startupMaxReconnectAttempts(n);
            return this;
        }

        /** How long a send waits for a connection or buffer room; negative ({@link #NO_TIMEOUT}) = forever. */
        public Builder timeout(Duration d) {
            timeout = d;
            return this;
        }

        public Builder maxCacheSize(long bytes) {
            maxCacheSize = bytes;
            return this;
        }

        public Builder priorityBackup(boolean b) {
            priorityBackup = b;
            return this;
        }

        /** The priority brokers (with {@link #priorityBackup}); replaces any set before. */
        public Builder priorityURIs(List<String> all) {
            priorityURIs.clear();
            all.forEach(u -> priorityURIs.add(CompositeUri.parse(u)));
            return this;
        }

        public Builder backup(boolean b) {
            backup = b;
            return this;
        }

        public Builder backupPoolSize(int n) {
            backupPoolSize = n;
            return this;
        }

        public Builder updateURIsSupported(boolean b) {
            updateURIsSupported = b;
            return this;
        }

        public Builder rebalanceUpdateURIs(boolean b) {
            rebalanceUpdateURIs = b;
            return this;
        }

        /** {@code host:port} glob patterns a learned broker must match; empty = any (see {@link FailoverClusterConfig}). */
        public Builder updateURIsAllowed(List<String> patterns) {
            updateURIsAllowed = List.copyOf(patterns);
            return this;
        }

        /** Send the configured login and passcode to learned brokers too. */
        public Builder updateURIsCredentials(boolean b) {
            updateURIsCredentials = b;
            return this;
        }

        /** Replaces every cluster-announcement setting at once. */
        public Builder cluster(FailoverClusterConfig c) {
            updateURIsSupported = c.updateURIsSupported();
            rebalanceUpdateURIs = c.rebalanceUpdateURIs();
            updateURIsAllowed = c.updateURIsAllowed();
            updateURIsCredentials = c.updateURIsCredentials();
            return this;
        }

        public Builder heartBeatSend(Duration d) {
            heartBeatSend = d;
            return this;
        }

        public Builder heartBeatReceive(Duration d) {
            heartBeatReceive = d;
            return this;
        }

        /** Both heart-beat directions; {@link Duration#ZERO} turns them off. */
        public Builder heartBeats(Duration d) {
            heartBeatSend = d;
            heartBeatReceive = d;
            return this;
        }

        public Builder clientId(String id) {
            clientId = id;
            return this;
        }

        public Builder auditDepth(int n) {
            auditDepth = n;
            return this;
        }

        /** A transport option for every broker ({@code nested.KEY=VALUE}), e.g. {@code nested("login", "app")}. */
        public Builder nested(String key, String value) {
            nested.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        public FailoverConfig build() {
            return new FailoverConfig(uris, randomize, reconnect.build(), timeout, maxCacheSize, priorityBackup,
                    priorityURIs, backup, backupPoolSize, new FailoverClusterConfig(updateURIsSupported,
                    rebalanceUpdateURIs, updateURIsAllowed, updateURIsCredentials), heartBeatSend,
                    heartBeatReceive, clientId, auditDepth, nested);
        }
    }
}
