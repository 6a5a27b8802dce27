package io.fedbridge.discovery.multicast;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.uri.UriOptions;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * How a {@link MulticastDiscoveryAgent} announces its broker and finds the others. URI form, with every option:
 *
 * <pre>{@code
 * multicast://239.255.2.3:6155?group=orders&interface=eth0&secretFile=/etc/fedbridge/orders.secret
 *         &heartbeatInterval=500ms&expiry=10&timeToLive=1&advertise=true&discover=true&maxClockSkew=30s&maxPeers=64
 *         &initialReconnectDelay=1s&maxReconnectDelay=30s
 * }</pre>
 *
 * @param group             brokers announce and listen within a group; other groups on the same address and port
 *                          are ignored. Letters, digits, '.', '_' and '-', 1 to 64 of them (default {@code default},
 *                          as ActiveMQ)
 * @param address           the IPv4 multicast address (default {@code 239.255.2.3}, as ActiveMQ; the URI host
 *                          {@code default} means it too)
 * @param port              the UDP port (default 6155)
 * @param networkInterface  the interface to announce and listen on, by name ({@code eth0}) or IPv4 address; null
 *                          (the default) means the loopback interface, so only brokers on this machine find each
 *                          other until an interface is chosen (URI option {@code interface}). An interface other
 *                          than loopback needs a {@code secret}: the agent refuses to start without one
 * @param heartbeatInterval how often the broker announces itself (default 500 ms, as ActiveMQ's
 *                          {@code keepAliveInterval}, which the URI accepts too)
 * @param expiry            a peer is dropped after this many of its heartbeat intervals without an announcement
 *                          (default 10, as ActiveMQ)
 * @param timeToLive        {@code IP_MULTICAST_TTL} of announcements, 0 to 255 (default 1: the local network only)
 * @param advertise         announce this broker (default true); false: find peers without being found
 * @param discover          listen for peers and bridge to them (default true); false: be found without bridging
 *                          out
 * @param secret            the group's shared secret (URI option {@code secret}, or {@code secretFile}: the path of a
 *                          file holding it, trimmed), at least {@value MulticastSecret#MIN_LENGTH} characters; null (the
 *                          default): announcements are unsigned, allowed on the loopback interface only. With a
 *                          secret, announcements are signed and only signed, fresh, first-seen ones are acted on
 * @param maxClockSkew      with a secret, how far a signed announcement's timestamp may be from this broker's clock,
 *                          either way, before it is ignored as stale (default 30 s; 1 s to 1 h): replays of recorded
 *                          datagrams are useless after this long, and the brokers' clocks must agree this well
 * @param maxPeers          the most peers known at once (default 64, 1 to 65536): announcements of further brokers
 *                          are ignored and counted until a known peer leaves
 * @param reconnect         back-off before bridging to a peer again after its link failed, and when to give up
 */
public record MulticastDiscoveryConfig(String group, InetAddress address, int port, String networkInterface,
                                       Duration heartbeatInterval, int expiry, int timeToLive, boolean advertise,
                                       boolean discover, MulticastSecret secret, Duration maxClockSkew, int maxPeers,
                                       ReconnectConfig reconnect) {

    /** ActiveMQ's default group address, also meant by the URI host {@code default}. */
    public static final String DEFAULT_ADDRESS = "239.255.2.3";

    /** ActiveMQ's default port. */
    public static final int DEFAULT_PORT = 6155;

    /** The options of the agent itself, as they appear on a URI; the reconnect options come on top. */
    public static final Set<String> OWN_OPTION_NAMES = Set.of("group", "interface", "heartbeatInterval",
            "keepAliveInterval", "expiry", "timeToLive", "advertise", "discover", "secret", "secretFile", "maxClockSkew",
            "maxPeers");

    /** The default {@link #maxClockSkew()}. */
    public static final Duration DEFAULT_MAX_CLOCK_SKEW = Duration.ofSeconds(30);

    /** The default {@link #maxPeers()}. */
    public static final int DEFAULT_MAX_PEERS = 64;

    /** The largest {@link #maxPeers()}. */
    public static final int MAX_PEERS_LIMIT = 65_536;

    /** Every option a {@code multicast://} URI may carry besides the bridge options. */
    public static final Set<String> OPTION_NAMES = union(OWN_OPTION_NAMES, ReconnectConfig.OPTION_NAMES);

    private static final Pattern GROUP = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern IPV4_LITERAL = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Duration MIN_HEARTBEAT_INTERVAL = Duration.ofMillis(10);
    private static final Duration MAX_HEARTBEAT_INTERVAL = Duration.ofHours(1);
    private static final Duration MIN_CLOCK_SKEW = Duration.ofSeconds(1);
    private static final Duration MAX_CLOCK_SKEW = Duration.ofHours(1);

    public MulticastDiscoveryConfig {
        if (group == null || !GROUP.matcher(group).matches()) {
            throw new IllegalArgumentException("group must be 1-64 letters, digits, '.', '_' or '-', but was "
                    + (group == null ? "null" : "'" + group + "'"));
        }
        if (!(address instanceof Inet4Address) || !address.isMulticastAddress()) {
            throw new IllegalArgumentException("address must be an IPv4 multicast address (224.0.0.0 to "
                    + "239.255.255.255), but was " + (address == null ? "null" : address.getHostAddress()));
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("port must be 1 to 65535, but was " + port);
        }
        if (networkInterface != null && networkInterface.isBlank()) {
            throw new IllegalArgumentException("interface must be an interface name or IPv4 address, but was '"
                    + networkInterface + "'");
        }
        if (heartbeatInterval == null || heartbeatInterval.compareTo(MIN_HEARTBEAT_INTERVAL) < 0
                || heartbeatInterval.compareTo(MAX_HEARTBEAT_INTERVAL) > 0) {
            throw new IllegalArgumentException("heartbeatInterval must be " + MIN_HEARTBEAT_INTERVAL.toMillis() + " ms to "
                    + MAX_HEARTBEAT_INTERVAL + ", but was " + heartbeatInterval);
        }
        if (heartbeatInterval.toNanos() % 1_000_000 != 0) {
            throw new IllegalArgumentException("heartbeatInterval must be whole milliseconds, but was " + heartbeatInterval);
        }
        if (expiry < 1) {
            throw new IllegalArgumentException("expiry must be >= 1 (missed heartbeats), but was " + expiry);
        }
        if (timeToLive < 0 || timeToLive > 255) {
            throw new IllegalArgumentException("timeToLive must be 0 to 255, but was " + timeToLive);
        }
        if (!advertise && !discover) {
            throw new IllegalArgumentException("advertise and discover must not both be false: the agent would do nothing");
        }
        if (maxClockSkew == null || maxClockSkew.compareTo(MIN_CLOCK_SKEW) < 0 || maxClockSkew.compareTo(MAX_CLOCK_SKEW) > 0) {
            throw new IllegalArgumentException("maxClockSkew must be " + MIN_CLOCK_SKEW + " to " + MAX_CLOCK_SKEW
                    + ", but was " + maxClockSkew);
        }
        if (maxPeers < 1 || maxPeers > MAX_PEERS_LIMIT) {
            throw new IllegalArgumentException("maxPeers must be 1 to " + MAX_PEERS_LIMIT + ", but was " + maxPeers);
        }
        Objects.requireNonNull(reconnect, "reconnect");
    }

    public static MulticastDiscoveryConfig ofDefaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().group(group).address(address).port(port).networkInterface(networkInterface)
                .heartbeatInterval(heartbeatInterval).expiry(expiry).timeToLive(timeToLive).advertise(advertise)
                .discover(discover).secret(secret).maxClockSkew(maxClockSkew).maxPeers(maxPeers).reconnect(reconnect);
    }

    /** The address as a string, e.g. {@code 239.255.2.3:6155}. */
    public String endpoint() {
        return address.getHostAddress() + ":" + port;
    }

    /** How long a peer may stay silent before it expires, if it announces every {@code peerInterval}. */
    public Duration expiryAfter(Duration peerInterval) {
        return peerInterval.multipliedBy(expiry);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new HashSet<>(a);
        all.addAll(b);
        return Set.copyOf(all);
    }

    public static final class Builder {
        private String group = "default";
        private InetAddress address = literal(DEFAULT_ADDRESS);
        private int port = DEFAULT_PORT;
        private String networkInterface;
        private Duration heartbeatInterval = Duration.ofMillis(500);
        private String heartbeatOption;
        private int expiry = 10;
        private int timeToLive = 1;
        private boolean advertise = true;
        private boolean discover = true;
        private MulticastSecret secret;
        private Path secretFile;
        private boolean secretGiven;
        private Duration maxClockSkew = DEFAULT_MAX_CLOCK_SKEW;
        private int maxPeers = DEFAULT_MAX_PEERS;
        private ReconnectConfig.Builder reconnect = ReconnectConfig.builder();

        private Builder() {
        }

        /**
         * Binds this agent's options and the reconnect options; the caller calls {@link UriOptions#finish()}.
         * {@code heartbeatInterval} and ActiveMQ's {@code keepAliveInterval} set the same thing: give one.
         */
        public Builder bind(UriOptions options) {
            options.string("group", this::group)
                    .string("interface", this::networkInterface)
                    .durationMillis("heartbeatInterval", d -> heartbeatOption("heartbeatInterval", d))
                    .durationMillis("keepAliveInterval", d -> heartbeatOption("keepAliveInterval", d))
                    .integer("expiry", this::expiry)
                    .integer("timeToLive", this::timeToLive)
                    .bool("advertise", this::advertise)
                    .bool("discover", this::discover)
                    .string("secret", this::secret)
                    .value("secretFile", Path::of, this::secretFile)
                    .durationMillis("maxClockSkew", this::maxClockSkew)
                    .integer("maxPeers", this::maxPeers);
            reconnect.bind(options);
            return this;
        }

        private void heartbeatOption(String key, Duration d) {
            if (heartbeatOption != null) {
                throw new IllegalArgumentException("give either heartbeatInterval or keepAliveInterval, not both");
            }
            heartbeatOption = key;
            heartbeatInterval(d);
        }

        public Builder group(String group) {
            this.group = group;
            return this;
        }

        public Builder address(InetAddress address) {
            this.address = address;
            return this;
        }

        /**
         * The group address as an IPv4 literal, or {@code default} for {@value #DEFAULT_ADDRESS}. Host names are not
         * looked up.
         */
        public Builder address(String address) {
            if ("default".equalsIgnoreCase(address)) {
                return address(literal(DEFAULT_ADDRESS));
            }
            InetAddress parsed = literal(address);
            if (parsed == null) {
                throw new IllegalArgumentException("address must be an IPv4 multicast address such as " + DEFAULT_ADDRESS
                        + ", or 'default', but was " + (address == null ? "null" : "'" + address + "'"));
            }
            return address(parsed);
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** By name or IPv4 address; null: the loopback interface. */
        public Builder networkInterface(String networkInterface) {
            this.networkInterface = networkInterface;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder expiry(int expiry) {
            this.expiry = expiry;
            return this;
        }

        public Builder timeToLive(int timeToLive) {
            this.timeToLive = timeToLive;
            return this;
        }

        public Builder advertise(boolean advertise) {
            this.advertise = advertise;
            return this;
        }

        public Builder discover(boolean discover) {
            this.discover = discover;
            return this;
        }

        /**
         * The group's shared secret, at least {@value MulticastSecret#MIN_LENGTH} characters, used as given.
         *
         * @throws IllegalArgumentException if it is shorter (the message gives its length, never the secret)
         */
        public Builder secret(String secret) {
            this.secret = MulticastSecret.of(secret);
            this.secretGiven = true;
            return this;
        }

        /** The group's shared secret; null for none (unsigned announcements, on the loopback interface only). */
        public Builder secret(MulticastSecret secret) {
            this.secret = secret;
            this.secretGiven = secret != null;
            return this;
        }

        /** A file holding the group's shared secret (UTF-8, trimmed), read by {@link #build()}; null for none. */
        public Builder secretFile(Path secretFile) {
            this.secretFile = secretFile;
            return this;
        }

        public Builder maxClockSkew(Duration maxClockSkew) {
            this.maxClockSkew = maxClockSkew;
            return this;
        }

        public Builder maxPeers(int maxPeers) {
            this.maxPeers = maxPeers;
            return this;
        }

        public Builder reconnect(ReconnectConfig reconnect) {
            this.reconnect = Objects.requireNonNull(reconnect, "reconnect").toBuilder();
            return this;
        }

        /** @throws IllegalArgumentException for an invalid value or conflicting options, naming them */
        public MulticastDiscoveryConfig build() {
            MulticastSecret shared = secret;
            if (secretFile != null) {
                if (secretGiven) {
                    throw new IllegalArgumentException("give either secret or secretFile, not both");
                }
                shared = MulticastSecret.fromFile(secretFile);
            }
            return new MulticastDiscoveryConfig(group, address, port, networkInterface, heartbeatInterval, expiry,
                    timeToLive, advertise, discover, shared, maxClockSkew, maxPeers, reconnect.build());
        }

        /** Parses a dotted quad without ever looking a name up; null if {@code ipv4} is not one. */
        private static InetAddress literal(String ipv4) {
            if (ipv4 == null || !IPV4_LITERAL.matcher(ipv4).matches()) {
                return null;
            }
            String[] parts = ipv4.split("\\.");
            byte[] bytes = new byte[4];
            for (int i = 0; i < 4; i++) {
                int octet = Integer.parseInt(parts[i]);
                if (octet > 255) {
                    return null;
                }
                bytes[i] = (byte) octet;
            }
            try {
                return InetAddress.getByAddress(bytes);
            } catch (UnknownHostException e) {
                throw new IllegalStateException("4 bytes are an IPv4 address", e);
            }
        }
    }
}
