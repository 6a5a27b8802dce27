package io.fedbridge.discovery.multicast;

import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryAgentProvider;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Creates {@link MulticastDiscoveryAgent}s for network connector URIs with the scheme {@code multicast}:
 *
 * <pre>{@code
 * multicast://239.255.2.3:6155?group=orders&interface=eth0&secretFile=/etc/fedbridge/orders.secret
 * multicast://default?group=orders          (ActiveMQ's spelling of 239.255.2.3:6155; loopback only, unsigned)
 * }</pre>
 *
 * Every broker with such a connector announces itself to the group and bridges to every other broker that does, so
 * a federation forms without a list of peers (a full mesh: leave {@code duplex} off, each side bridges its own
 * way).
 *
 * <h2>Options</h2>
 * <ul>
 *   <li>host and port: an IPv4 multicast address and UDP port, default {@code 239.255.2.3:6155}; host
 *       {@code default} means that address.</li>
 *   <li>{@code group} (default {@code default}): brokers in other groups on the same address are ignored.</li>
 *   <li>{@code interface}: the network interface, by name ({@code eth0}) or IPv4 address. <b>Default: the loopback
 *       interface</b>, logged at start, so that a broker never announces itself to a network nobody chose: without
 *       this option only brokers on the same machine find each other. Datagrams leave through this interface only,
 *       and the group is joined on it only. Any interface other than loopback needs {@code secret} or
 *       {@code secretFile}: without one the agent refuses to start.</li>
 *   <li>{@code secret} or {@code secretFile} (not both; default none): the group's shared secret, at least 16
 *       characters, or the path of a file holding it (trimmed, so a trailing newline does not count). Every broker
 *       of the group needs the same one. Announcements are then signed, and unsigned, badly signed, stale and
 *       replayed ones are ignored, counted and logged at WARN (at most once a minute per source). The secret is
 *       never logged; in a URI, {@code secret}'s value is masked like a password.</li>
 *   <li>{@code maxClockSkew} (default 30 s): with a secret, a signed announcement whose timestamp is further than
 *       this from this broker's clock, either way, is ignored as stale; brokers' clocks must agree this well.</li>
 *   <li>{@code maxPeers} (default 64): the most peers known at once; announcements of further brokers are ignored
 *       and counted until a peer leaves.</li>
 *   <li>{@code timeToLive} (default 1): hops an announcement may cross; 0 keeps it on this machine.</li>
 *   <li>{@code heartbeatInterval} (default 500 ms; ActiveMQ's {@code keepAliveInterval} is accepted too) and
 *       {@code expiry} (default 10): a peer is dropped after {@code expiry} of its heartbeat intervals without an
 *       announcement, and at once when it announces its departure.</li>
 *   <li>{@code advertise} / {@code discover} (default true): announce this broker / bridge to the brokers found.
 *       With {@code advertise=false} a broker finds peers without being found; with {@code discover=false} it is
 *       found without bridging out.</li>
 *   <li>the reconnect options of {@code static:} discovery, with ActiveMQ's names and defaults
 *       ({@link io.fedbridge.core.ReconnectConfig}): {@code initialReconnectDelay} (1 s), {@code maxReconnectDelay}
 *       (30 s), {@code useExponentialBackOff} (true), {@code backOffMultiplier} (2), {@code maxReconnectAttempts}
 *       (0 = never give up), {@code minConnectTime} (5 s).</li>
 * </ul>
 * Plain numbers in durations are milliseconds; {@code 250ms}, {@code 5s} and {@code PT5S} work too. The bridge
 * options ({@code networkTTL}, {@code prefetchSize}, ...) apply to every bridge the connector creates.
 *
 * <h2>Datagram format</h2>
 * One UDP datagram of UTF-8 text, at most 1400 bytes, fields separated by single spaces, no line terminator;
 * version 1 is unsigned (seven fields), version 2 signed (eleven):
 * <pre>
 * FEDBRIDGE1 ALIVE|DEAD &lt;group&gt; &lt;brokerId&gt; &lt;brokerName&gt; &lt;heartbeatMillis&gt; &lt;uri&gt;[,&lt;uri&gt;...]
 * FEDBRIDGE2 ALIVE|DEAD &lt;group&gt; &lt;brokerId&gt; &lt;brokerName&gt; &lt;heartbeatMillis&gt; &lt;uri&gt;[,&lt;uri&gt;...]
 *            &lt;timestampMillis&gt; &lt;session&gt; &lt;sequence&gt; &lt;hmac&gt;
 * e.g. FEDBRIDGE1 ALIVE orders 6f1c0f4e-8d0b-4a4e-9f55-1b2a9e0c7d13 broker-a 500 tcp://10.0.0.5:61613
 * </pre>
 * <ul>
 *   <li>{@code FEDBRIDGE1} / {@code FEDBRIDGE2}: the version. An agent without a secret sends version 1 and reads
 *       only version 1; one with a secret sends version 2 and reads only version 2, counting version 1 datagrams of
 *       its group as unsigned. Another version, e.g. {@code FEDBRIDGE3}, is not understood and ignored (a format
 *       change that old brokers could misread gets a new version).</li>
 *   <li>{@code ALIVE} every heartbeat interval; {@code DEAD} once when the broker stops cleanly.</li>
 *   <li>{@code heartbeatMillis}: the sender's heartbeat interval (1 to 3 600 000), so that receivers expire it after
 *       {@code expiry} of <em>its</em> intervals.</li>
 *   <li>the URIs: the sender's {@code tcp://} and {@code ssl://} connector URIs, each with a port; peers use the
 *       first. A wildcard host ({@code 0.0.0.0}) is replaced by the datagram's source address. Options
 *       are neither announced nor, if a peer announces some, used.</li>
 *   <li>In every field a space, comma, {@code '%'} or control character is written {@code %XX} (hex).</li>
 *   <li>version 2 only: {@code timestampMillis}, the sender's clock in milliseconds since the epoch;
 *       {@code session}, 16 lower-case hex digits drawn at random when the sender's agent was created;
 *       {@code sequence}, counting the session's datagrams from 1; {@code hmac}, the HMAC-SHA256 keyed with the
 *       shared secret (its UTF-8 bytes) of every byte before it, the space included, in unpadded base64url. A
 *       receiver takes a datagram only if the HMAC matches, the timestamp is within {@code maxClockSkew} of its own
 *       clock, and the sequence is higher than any it took from that broker id in that session (or the session is
 *       newer than the last one it saw from that broker id).</li>
 * </ul>
 * A datagram that breaks any of these rules is ignored and counted ({@link MulticastDiscoveryStats}); it never
 * affects the agent otherwise. Without a secret there is no authentication: anything that can send to the group
 * can announce itself, as with ActiveMQ, which is why the agent then stays on the loopback interface.
 *
 * <p>Registered in {@code META-INF/services}; found by {@link io.fedbridge.core.discovery.DiscoveryAgents}.
 * Stateless and thread-safe.
 */
public final class MulticastDiscoveryAgentProvider implements DiscoveryAgentProvider {

    /** The URI scheme this provider serves. */
    public static final String SCHEME = "multicast";

    private static final String EXAMPLE = "multicast://239.255.2.3:6155?group=NAME";

    /** For {@link java.util.ServiceLoader}. */
    public MulticastDiscoveryAgentProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Set<String> optionNames() {
        return MulticastDiscoveryConfig.OPTION_NAMES;
    }

    /**
     * Parses the address from {@code uri}'s host and port and the options from {@code options}.
     *
     * @throws IllegalArgumentException if {@code uri} is not a plain {@code multicast://} URI with an IPv4 multicast
     *                                  address, or an option is unknown, malformed or conflicts with another; the
     *                                  message quotes the URI and, for an unknown option, lists {@code validOptions}
     */
    @Override
    public DiscoveryAgent create(CompositeUri uri, Map<String, String> options, Set<String> validOptions,
                                 DiscoveryContext context) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(validOptions, "validOptions");
        Objects.requireNonNull(context, "context");
        return MulticastDiscoveryAgent.of(config(uri, options, validOptions), context);
    }

    /** The configuration {@code uri} and {@code options} describe; see {@link #create}. */
    public static MulticastDiscoveryConfig config(CompositeUri uri, Map<String, String> options, Set<String> validOptions) {
        String where = "network connector URI '" + uri + "'";
        if (!SCHEME.equals(uri.scheme())) {
            throw new IllegalArgumentException("scheme of " + where + " must be '" + SCHEME + "', but was '"
                    + uri.scheme() + "'");
        }
        if (uri.isComposite()) {
            throw new IllegalArgumentException(where + " must be a plain URI such as " + EXAMPLE + ", but is composite");
        }
        if (!uri.path().isEmpty() && !uri.path().equals("/")) {
            throw new IllegalArgumentException(where + " must have no path, but has '" + uri.path() + "'");
        }
        MulticastDiscoveryConfig.Builder builder = MulticastDiscoveryConfig.builder();
        try {
            builder.address(uri.host());
            if (uri.hasPort()) {
                builder.port(uri.port());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + where + ": " + e.getMessage(), e);
        }
        UriOptions binder = UriOptions.bind(options, where);
        builder.bind(binder);
        // The other valid options (the bridge's) were taken out of `options` by the caller, which binds them
        // itself. Claiming them here makes finish() list every option valid on this URI and suggest any of them.
        for (String other : validOptions) {
            if (!MulticastDiscoveryConfig.OPTION_NAMES.contains(other)) {
                binder.string(other, ignored -> { });
            }
        }
        binder.finish();
        try {
            return builder.build();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + where + ": " + e.getMessage(), e);
        }
    }
}
