package io.fedbridge.broker;

import io.fedbridge.broker.security.ConnectionLimits;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.broker.store.Durability;
import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.core.uri.UriOptions;
import java.io.IOException;
import java.nio.charset.MalformedInputException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * Reads a broker node's configuration from the INI-style file that {@code fedbridge broker --config FILE}
 * reads, into a {@link BrokerConfig.Builder} (so command-line flags can still override what the file says):
 *
 * <pre>{@code
 * BrokerConfig config = BrokerConfigFile.load(Path.of("broker.conf")).build();
 * Broker broker = Broker.start(config);
 * }</pre>
 *
 * <pre>
 * # comments start with '#' or ';', on their own line or after whitespace
 * name = A
 * listen = tcp://127.0.0.1:61613, tcp://127.0.0.1:61623   # a list; repeated lines add up
 * data = data/A                                           # relative to this file's directory
 * memoryLimit = 256MiB
 * heartBeat = 10s
 * network = static:(tcp://127.0.0.1:61614)?networkTTL=2   # repeatable, kept verbatim
 * metrics = http://127.0.0.1:9404                        # needs fedbridge-metrics (docs/metrics.md)
 * ha.group = orders                                       # an HA group (fedbridge-ha, docs/ha.md): ha.brokers,
 * ha.brokers = tcp://a1:61613, tcp://a2:61613             #   ha.replicate, ha.zookeeper, ha.backupTimeout,
 *                                                         #   ha.zookeeperSessionTimeout
 *
 * [policy /queue/orders.&gt;]
 * maxNumMsgs = 100000
 * limitBehavior = FLOW_CONTROL
 *
 * [security]                                              # at most once; see io.fedbridge.broker.security
 * users = users.properties                                # PropertiesUserStore, relative to this file
 * authorization = authorization.rules                     # AuthorizationRules
 * keyStore = broker.p12                                   # TLS of every ssl:// listener
 * keyStorePassword = ...
 * maximumConnectionsPerAddress = 50
 * </pre>
 *
 * The {@code [security]} section's {@linkplain #securityKeys() keys} map to {@link SecurityConfig.Builder},
 * {@link TlsConfig.Builder} (the TLS defaults of {@code ssl://} listeners, which their URIs may override) and
 * {@link ConnectionLimits.Builder}; {@code users} and {@code authorization} name files read at once.
 *
 * Keys before the first section are {@linkplain #brokerKeys() broker keys}; each {@code [policy PATTERN]}
 * section is one {@link DestinationPolicy} with {@linkplain #policyKeys() policy keys}. Every key maps to
 * exactly one method of {@link BrokerConfig.Builder}, {@link DestinationPolicy.Builder} or one component of
 * {@link FrameLimits} or {@link ResourceLimits}, and takes the same value as that method; a key that is absent leaves its default.
 * Keys are case-sensitive. Only {@code listen} and {@code network} may appear more than once.
 *
 * <p>Values: sizes are a whole number of bytes or a number with unit {@code B}, {@code KB}, {@code KiB},
 * {@code MB}, {@code MiB}, {@code GB}, {@code GiB} (KB = 1000, KiB = 1024; units case-insensitive), e.g.
 * {@code 256MiB}, {@code 1.5GB}; durations are read as {@link UriOptions} reads them (plain numbers are
 * milliseconds; {@code 250ms}, {@code 5s}, {@code 2m}, {@code 1m30s}; ISO-8601 {@code PT5S}); booleans are
 * {@code true} or {@code false}; enums are their constant names, case-insensitive. The full reference is
 * {@code docs/configuration.md}.
 *
 * <p>Every problem is a {@link ConfigFileException} whose message names the file, the line, the key and the
 * value, e.g. {@code broker.conf:7: unknown key 'memoryLimt'; valid keys are: ...; did you mean
 * 'memoryLimit'?}. The values are checked line by line by the records themselves, so a file that loads builds;
 * only a missing {@code name} is left for the caller to supply ({@link BrokerConfig.Builder#name}).
 *
 * <p>Stateless and thread-safe: each {@link #parse} has its own parser. The values' conversions are
 * {@link ConfigValue}'s, the {@code [security]} section is a {@link SecuritySection}, and the message for an unknown key
 * comes from {@link UnknownKeys}.
 */
public final class BrokerConfigFile {

    private static final String POLICY_SECTION = "policy";
    /** A {@code [destination NAME]} section: a policy key section that defines NAME for the whole federation. */
    private static final String DESTINATION_SECTION = "destination";
    private static final String SECURITY_SECTION = "security";
    private static final TlsConfig PLACEHOLDER_TLS = TlsConfig.builder().keyStore(Path.of("placeholder.p12"))
            .trustStore(Path.of("placeholder.p12")).build();
    /** The keys of the {@code [security]} section, in documentation order. */
    private static final Set<String> SECURITY_KEYS = securityKeyNames();
    /** Stands in for a name the file does not give while its values are checked. */
    private static final String PLACEHOLDER_NAME = "config-check";

    /** The keys before the first section, in the order the reference documents them. */
    private static final Map<String, BrokerKey> BROKER_KEYS = index(List.of(
            new BrokerKey("name", false, (v, p) -> {
                String name = v.text();
                return b -> b.name(name);
            }),
            new BrokerKey("listen", true, (v, p) -> {
                List<String> uris = v.uriList();
                return b -> uris.forEach(b::listen);
            }),
            new BrokerKey("data", false, (v, p) -> {
                Path dir = v.path(p.baseDir);
                return b -> b.dataDirectory(dir);
            }),
            new BrokerKey("durability", false, (v, p) -> {
                Durability durability = v.enumValue(Durability.class);
                return b -> b.durability(durability);
            }),
            new BrokerKey("memoryLimit", false, (v, p) -> {
                long bytes = v.size(Long.MAX_VALUE);
                return b -> b.memoryLimit(bytes);
            }),
            new BrokerKey("heartBeat", false, (v, p) -> {
                Duration heartBeat = v.duration();
                return b -> b.heartBeat(heartBeat);
            }),
            new BrokerKey("inDoubtHold", false, (v, p) -> {
                Duration hold = v.duration();
                return b -> b.inDoubtHold(hold);
            }),
            new BrokerKey("ioThreads", false, (v, p) -> {
                int threads = v.integer();
                return b -> b.ioThreads(threads);
            }),
            new BrokerKey("defaultPrefetch", false, (v, p) -> {
                int prefetch = v.integer();
                return b -> b.defaultPrefetch(prefetch);
            }),
            new BrokerKey("maxFrameSize", false, (v, p) -> p.limits(
                    new FrameLimits((int) v.size(Integer.MAX_VALUE), p.limits.maxHeaders(), p.limits.maxHeaderLength()))),
            new BrokerKey("maxHeaders", false, (v, p) -> p.limits(
                    new FrameLimits(p.limits.maxFrameSize(), v.integer(), p.limits.maxHeaderLength()))),
            new BrokerKey("maxHeaderLength", false, (v, p) -> p.limits(
                    new FrameLimits(p.limits.maxFrameSize(), p.limits.maxHeaders(), (int) v.size(Integer.MAX_VALUE)))),
            new BrokerKey("connectAttemptTimeout", false, (v, p) -> p.resourceLimits(l -> l.connectAttemptTimeout(v.duration()))),
            new BrokerKey("maxSubscriptionsPerConnection", false,
                    (v, p) -> p.resourceLimits(l -> l.maxSubscriptionsPerConnection(v.integer()))),
            new BrokerKey("maxTransactionsPerConnection", false,
                    (v, p) -> p.resourceLimits(l -> l.maxTransactionsPerConnection(v.integer()))),
            new BrokerKey("maxDestinations", false, (v, p) -> p.resourceLimits(l -> l.maxDestinations(v.integer()))),
            new BrokerKey("maxDurableSubscriptionsPerClientId", false,
                    (v, p) -> p.resourceLimits(l -> l.maxDurableSubscriptionsPerClientId(v.integer()))),
            new BrokerKey("maxSlowDuration", false, (v, p) -> p.resourceLimits(l -> l.maxSlowDuration(v.duration()))),
            new BrokerKey("minFreeDisk", false, (v, p) -> p.resourceLimits(l -> l.minFreeDisk(v.size(Long.MAX_VALUE)))),
            new BrokerKey("network", true, (v, p) -> {
                String uri = v.uri();
                return b -> b.networkConnector(uri);
            }),
            new BrokerKey("metrics", false, (v, p) -> {
                String uri = v.uri();
                return b -> b.metrics(uri);
            }),
            new BrokerKey("ha.group", false, (v, p) -> p.ha(h -> h.group(v.raw()))),
            new BrokerKey("ha.brokers", true, (v, p) -> {
                List<String> uris = v.uriList();
                return p.ha(h -> h.brokers(uris));
            }),
            new BrokerKey("ha.replicate", false, (v, p) -> {
                HaConfig.Replicate r = HaConfig.Replicate.parse(v.raw());
                return p.ha(h -> h.replicate(r));
            }),
            new BrokerKey("ha.zookeeper", false, (v, p) -> p.ha(h -> h.zookeeper(v.raw()))),
            new BrokerKey("ha.backupTimeout", false, (v, p) -> {
                Duration d = v.duration();
                return p.ha(h -> h.backupTimeout(d));
            }),
            new BrokerKey("ha.zookeeperSessionTimeout", false, (v, p) -> {
                Duration d = v.duration();
                return p.ha(h -> h.zookeeperSessionTimeout(d));
            }),
            new BrokerKey("autoDeleteIdle", false, (v, p) -> {
                Duration idle = v.duration();
                return b -> b.autoDeleteIdle(idle);
            }),
            new BrokerKey("tempDestinationReconnectGrace", false, (v, p) -> {
                Duration grace = v.duration();
                return b -> b.tempDestinationReconnectGrace(grace);
            }),
            new BrokerKey("masterBroker", false, (v, p) -> b -> b.masterBroker(v.raw()))), BrokerKey::name);

    /** The keys of a {@code [policy PATTERN]} section, in the order of {@link DestinationPolicy}'s components. */
    private static final Map<String, PolicyKey> POLICY_KEYS = index(List.of(
            new PolicyKey("maxNumMsgs", (v, b) -> b.maxNumMsgs(v.longInteger())),
            new PolicyKey("maxTotalMsgBytes", (v, b) -> b.maxTotalMsgBytes(v.size(Long.MAX_VALUE))),
            new PolicyKey("maxBytesPerMsg", (v, b) -> b.maxBytesPerMsg(v.size(Long.MAX_VALUE))),
            new PolicyKey("maxNumProducers", (v, b) -> b.maxNumProducers(v.integer())),
            new PolicyKey("maxNumActiveConsumers", (v, b) -> b.maxNumActiveConsumers(v.integer())),
            new PolicyKey("maxNumBackupConsumers", (v, b) -> b.maxNumBackupConsumers(v.integer())),
            new PolicyKey("consumerFlowLimit", (v, b) -> b.consumerFlowLimit(v.integer())),
            new PolicyKey("limitBehavior", (v, b) -> b.limitBehavior(v.enumValue(LimitBehavior.class))),
            new PolicyKey("useDMQ", (v, b) -> b.useDMQ(v.bool())),
            new PolicyKey("maxRedeliveries", (v, b) -> b.maxRedeliveries(v.integer())),
            new PolicyKey("localDeliveryPreferred", (v, b) -> b.localDeliveryPreferred(v.bool())),
            new PolicyKey("isLocalOnly", (v, b) -> b.isLocalOnly(v.bool())),
            new PolicyKey("replicateFrom", (v, b) -> b.replicateFrom(v.uri()))), PolicyKey::name);

    private BrokerConfigFile() {
    }

    /**
     * Reads {@code file} (UTF-8). Relative paths in it resolve against the file's directory.
     *
     * @param file the config file; error messages name it as given
     * @return a builder with the file's settings; its name is unset (null) if the file has no {@code name}
     * @throws ConfigFileException if the file cannot be read or is not valid; the message names the file
     */
    public static BrokerConfig.Builder load(Path file) {
        Objects.requireNonNull(file, "file");
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            Path absolute = file.toAbsolutePath();
            throw new ConfigFileException(file.toString(), 0, "config file not found"
                    + (absolute.toString().equals(file.toString()) ? "" : " (looked for " + absolute + ")"), e);
        } catch (MalformedInputException e) {
            throw new ConfigFileException(file.toString(), 0, "config file is not UTF-8 text", e);
        } catch (IOException e) {
            throw new ConfigFileException(file.toString(), 0, "cannot read config file: " + e, e);
        }
        return parse(text, file.toString(), file.toAbsolutePath().getParent());
    }

    /**
     * Parses the text of a config file.
     *
     * @param text       the file's content
     * @param sourceName what error messages call the file, e.g. {@code broker.conf}
     * @param baseDir    the directory relative paths resolve against; null leaves them relative (to the
     *                   working directory)
     * @return a builder with the file's settings; its name is unset (null) if the text has no {@code name}
     * @throws ConfigFileException if the text is not valid
     */
    public static BrokerConfig.Builder parse(String text, String sourceName, Path baseDir) {
        Objects.requireNonNull(text, "text");
        Objects.requireNonNull(sourceName, "sourceName");
        return new Parser(sourceName, baseDir).parse(text);
    }

    /** The keys allowed before the first section, in documentation order; unmodifiable. */
    public static Set<String> brokerKeys() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(BROKER_KEYS.keySet()));
    }

    /** The keys allowed in the {@code [security]} section, in documentation order; unmodifiable. */
    public static Set<String> securityKeys() {
        return SECURITY_KEYS;
    }

    private static Set<String> securityKeyNames() {
        Set<String> keys = new LinkedHashSet<>(List.of("users", "authorization", "allowAnonymous", "maxFailedLogins",
                "loginLockout", "maxLoginLockout", "authenticationThreads", "maximumConnections",
                "maximumConnectionsPerAddress", "keyStore", "keyStorePassword", "keyStoreType", "trustStore",
                "trustStorePassword", "trustStoreType", "needClientAuth", "wantClientAuth", "enabledProtocols",
                "enabledCipherSuites", "verifyHostName", "handshakeTimeout", "federationSecret", "federationSecretFile"));
        keys.addAll(TlsConfig.OPTION_NAMES);
        return Collections.unmodifiableSet(keys);
    }

    /** The keys allowed in a {@code [policy PATTERN]} section, in documentation order; unmodifiable. */
    public static Set<String> policyKeys() {
        return Collections.unmodifiableSet(new LinkedHashSet<>(POLICY_KEYS.keySet()));
    }

    // ---------------------------------------------------------------------------------------------
    // Keys

    /** Converts a broker key's value and returns the one builder call it stands for. */
    @FunctionalInterface
    private interface BrokerBinding {
        Consumer<BrokerConfig.Builder> bind(ConfigValue value, Parser parser);
    }

    private record BrokerKey(String name, boolean repeatable, BrokerBinding binding) {
    }

    private record PolicyKey(String name, BiConsumer<ConfigValue, DestinationPolicy.Builder> binding) {
    }

    private static <K> Map<String, K> index(List<K> keys, Function<K, String> name) {
        Map<String, K> map = new LinkedHashMap<>();
        keys.forEach(k -> map.put(name.apply(k), k));
        return Collections.unmodifiableMap(map);
    }

    // ---------------------------------------------------------------------------------------------
    // Parsing

    /** One parse: the settings read so far, as the builder calls they make, and the open section. */
    private static final class Parser {
        private final String source;
        private final Path baseDir;
        private final List<Consumer<BrokerConfig.Builder>> calls = new ArrayList<>();
        private final Map<String, Integer> brokerKeyLines = new HashMap<>();
        private final Map<String, Integer> sectionLines = new HashMap<>();
        private FrameLimits limits = FrameLimits.ofDefaults();
        private final ResourceLimits.Builder resourceLimits = ResourceLimits.builder();
        /** The {@code ha.*} keys so far: built once the whole file is read (ha.group and ha.brokers go together). */
        private HaConfig.Builder ha;
        private Section section;
        private SecuritySection securitySection;
        private int securityLine;
        private boolean finished;

        Parser(String source, Path baseDir) {
            this.source = source;
            this.baseDir = baseDir;
        }

        BrokerConfig.Builder parse(String text) {
            String[] lines = text.split("\\R", -1);
            for (int i = 0; i < lines.length; i++) {
                String line = i == 0 && lines[0].startsWith("\uFEFF") ? lines[0].substring(1) : lines[i];
                parseLine(i + 1, line);
            }
            endSection();
            finished = true;
            try {
                check();
            } catch (IllegalArgumentException e) {
                // Each line was checked as it was read, so only a rule spanning several keys can get here.
                throw new ConfigFileException(source, 0, message(e), e);
            }
            if (ha != null) {
                HaConfig built;
                try {
                    built = ha.build();
                } catch (IllegalArgumentException | NullPointerException e) {
                    Integer line = brokerKeyLines.getOrDefault("ha.group", brokerKeyLines.getOrDefault("ha.brokers", 0));
                    String why = e instanceof NullPointerException ? "ha.group must be set when any ha.* key is" : e.getMessage();
                    throw new ConfigFileException(source, line, why, e);
                }
                calls.add(b -> b.ha(built));
            }
            BrokerConfig.Builder builder = BrokerConfig.builder(null);
            calls.forEach(call -> call.accept(builder));
            return builder;
        }

        /** {@code a}, {@code a and b}, {@code a, b and c}. */
        private static String andList(List<String> names) {
            return names.size() <= 1 ? String.join("", names)
                    : String.join(", ", names.subList(0, names.size() - 1)) + " and " + names.get(names.size() - 1);
        }

        /** The builder call for an {@code ha.*} key: none yet, the group is built at the end of the file. */
        Consumer<BrokerConfig.Builder> ha(Consumer<HaConfig.Builder> change) {
            if (ha == null) {
                ha = new HaConfig.Builder();
            }
            change.accept(ha);
            return b -> {
            };
        }

        /** The builder call for a frame limit: the limits so far, with one of them changed. */
        Consumer<BrokerConfig.Builder> limits(FrameLimits changed) {
            limits = changed;
            return b -> b.limits(changed);
        }

        /** The builder call for a resource limit: the limits so far, with one of them changed. */
        Consumer<BrokerConfig.Builder> resourceLimits(Consumer<ResourceLimits.Builder> change) {
            change.accept(resourceLimits);
            ResourceLimits changed = resourceLimits.build();
            return b -> b.resourceLimits(changed);
        }

        private void parseLine(int lineNo, String raw) {
            String line = stripComment(raw).strip();
            if (line.isEmpty()) {
                return;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                startSection(lineNo, line.substring(1, line.length() - 1).strip());
                return;
            }
            int eq = line.indexOf('=');
            if (eq <= 0 || line.startsWith("[") || line.substring(0, eq).isBlank()) {
                throw error(lineNo, "line is not 'key = value', '[policy PATTERN]' or a comment: '" + raw.strip() + "'");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            if (securitySection != null) {
                securityKey(lineNo, key, value);
            } else if (section == null) {
                brokerKey(lineNo, key, value);
            } else {
                policyKey(lineNo, key, value);
            }
        }

        private void brokerKey(int lineNo, String key, String value) {
            BrokerKey k = BROKER_KEYS.get(key);
            if (k == null) {
                if (POLICY_KEYS.containsKey(key)) {
                    throw error(lineNo, "key '" + key + "' belongs in a [policy PATTERN] section, e.g. [policy >] for "
                            + "every destination; it cannot come before the first section");
                }
                throw error(lineNo, UnknownKeys.unknownKey(key, "", BROKER_KEYS.keySet(), POLICY_KEYS.keySet(), "a policy key"));
            }
            requireValue(lineNo, key, value);
            Integer first = brokerKeyLines.putIfAbsent(key, lineNo);
            if (first != null && !k.repeatable()) {
                throw error(lineNo, "duplicate key '" + key + "' (first set on line " + first + "); only "
                        + andList(BROKER_KEYS.values().stream().filter(BrokerKey::repeatable).map(BrokerKey::name).toList())
                        + " may be repeated");
            }
            apply(lineNo, key, () -> {
                calls.add(k.binding().bind(new ConfigValue(key, value), this));
                check();
            });
        }

        private void policyKey(int lineNo, String key, String value) {
            PolicyKey k = POLICY_KEYS.get(key);
            if (k == null) {
                if (BROKER_KEYS.containsKey(key)) {
                    throw error(lineNo, "key '" + key + "' is a broker key and must come before the first section, "
                            + "but this line is in " + section.title());
                }
                throw error(lineNo, UnknownKeys.unknownKey(key, " in " + section.title(), POLICY_KEYS.keySet(),
                        BROKER_KEYS.keySet(), "a broker key"));
            }
            requireValue(lineNo, key, value);
            Integer first = section.keyLines.putIfAbsent(key, lineNo);
            if (first != null) {
                throw error(lineNo, "duplicate key '" + key + "' in " + section.title() + " (first set on line "
                        + first + ")");
            }
            apply(lineNo, key, () -> {
                k.binding().accept(new ConfigValue(key, value), section.builder);
                section.builder.build();
            });
        }

        private void securityKey(int lineNo, String key, String value) {
            if (!SECURITY_KEYS.contains(key)) {
                throw error(lineNo, UnknownKeys.unknownKey(key, " in [security]", SECURITY_KEYS, BROKER_KEYS.keySet(), "a broker key"));
            }
            requireValue(lineNo, key, value);
            Integer first = securitySection.keyLines.putIfAbsent(key, lineNo);
            if (first != null) {
                throw error(lineNo, "duplicate key '" + key + "' in [security] (first set on line " + first + ")");
            }
            apply(lineNo, key, () -> securitySection.bind(new ConfigValue(key, value), baseDir));
        }

        private void startSection(int lineNo, String header) {
            String[] parts = header.split("\\s+", 2);
            if (parts[0].equals(SECURITY_SECTION) && parts.length == 1) {
                endSection();
                if (securityLine > 0) {
                    throw error(lineNo, "duplicate section [security] (first on line " + securityLine + ")");
                }
                securityLine = lineNo;
                securitySection = new SecuritySection(lineNo);
                return;
            }
            if (!parts[0].equals(POLICY_SECTION) && !parts[0].equals(DESTINATION_SECTION)) {
                throw error(lineNo, "unknown section type '" + parts[0] + "' in [" + header + "]; valid section "
                        + "types are: " + POLICY_SECTION + ", as in [policy /queue/orders.>], and " + DESTINATION_SECTION
                        + ", as in [destination /queue/orders]");
            }
            if (parts.length < 2 || parts[1].isBlank()) {
                throw error(lineNo, "section [" + header + "] needs a destination pattern, e.g. [policy /queue/orders.>] "
                        + "or [policy >] for every destination");
            }
            endSection();
            String pattern = parts[1].strip();
            Integer first = sectionLines.putIfAbsent(parts[0] + " " + pattern, lineNo);
            if (first != null) {
                throw error(lineNo, "duplicate section [" + parts[0] + " " + pattern + "] (first on line " + first + ")");
            }
            Section s = new Section(parts[0], pattern, lineNo);
            try {
                s.builder.build();
            } catch (IllegalArgumentException e) {
                throw new ConfigFileException(source, lineNo, "invalid section " + s.title() + ": " + message(e), e);
            }
            section = s;
        }

        private void endSection() {
            if (securitySection != null) {
                SecuritySection s = securitySection;
                securitySection = null;
                try {
                    SecurityConfig security = s.build();
                    calls.add(b -> b.security(security));
                    check();
                } catch (IllegalArgumentException e) {
                    throw new ConfigFileException(source, s.line, "invalid section [security]: " + message(e), e);
                }
            }
            if (section == null) {
                return;
            }
            Section s = section;
            section = null;
            try {
                DestinationPolicy policy = s.builder.build();
                calls.add(s.kind.equals(DESTINATION_SECTION) ? b -> b.destination(policy) : b -> b.policy(policy));
                check();
            } catch (IllegalArgumentException e) {
                throw new ConfigFileException(source, s.line, "invalid section " + s.title() + ": " + message(e), e);
            }
        }

        /** Builds what was read so far, under a stand-in name if need be, so the records judge every value. */
        private void check() {
            BrokerConfig.Builder probe = BrokerConfig.builder(PLACEHOLDER_NAME);
            if (!finished && securityLine == 0) {
                // The [security] section comes after the listeners it gives a key store to.
                probe.security(SecurityConfig.builder().tls(PLACEHOLDER_TLS).build());
            }
            calls.forEach(call -> call.accept(probe));
            probe.build();
        }

        private void requireValue(int lineNo, String key, String value) {
            if (value.isEmpty()) {
                throw error(lineNo, "empty value for key '" + key + "'");
            }
        }

        /** Runs the conversion and builder calls of one line; their errors get the line and, if need be, the key. */
        private void apply(int lineNo, String key, Runnable action) {
            try {
                action.run();
            } catch (ConfigFileException e) {
                throw e;
            } catch (IllegalArgumentException e) {
                String message = message(e);
                boolean namesKey = Pattern.compile("(?<![A-Za-z0-9])" + Pattern.quote(key) + "(?![A-Za-z0-9])")
                        .matcher(message).find();
                throw new ConfigFileException(source, lineNo, namesKey ? message : key + ": " + message, e);
            }
        }

        private ConfigFileException error(int lineNo, String detail) {
            return new ConfigFileException(source, lineNo, detail, null);
        }

        private static String message(IllegalArgumentException e) {
            return e.getMessage() == null ? e.toString() : e.getMessage();
        }
    }

    /** An open {@code [policy PATTERN]} or {@code [destination NAME]} section. */
    private static final class Section {
        final String kind;
        final String pattern;
        final int line;
        final DestinationPolicy.Builder builder;
        final Map<String, Integer> keyLines = new HashMap<>();

        Section(String kind, String pattern, int line) {
            this.kind = kind;
            this.pattern = pattern;
            this.line = line;
            this.builder = DestinationPolicy.builder(pattern);
        }

        String title() {
            return "[" + kind + " " + pattern + "]";
        }
    }

    /** Cuts a comment: a whole line starting with '#' or ';', or the rest of a line from a '#' or ';' after whitespace. */
    private static String stripComment(String line) {
        String trimmed = line.strip();
        if (trimmed.startsWith("#") || trimmed.startsWith(";")) {
            return "";
        }
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if ((c == '#' || c == ';') && Character.isWhitespace(line.charAt(i - 1))) {
                return line.substring(0, i);
            }
        }
        return line;
    }
}
