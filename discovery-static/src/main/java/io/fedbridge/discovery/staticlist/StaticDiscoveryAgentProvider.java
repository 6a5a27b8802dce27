package io.fedbridge.discovery.staticlist;

import io.fedbridge.core.ReconnectConfig;
import io.fedbridge.core.discovery.DiscoveryAgent;
import io.fedbridge.core.discovery.DiscoveryAgentProvider;
import io.fedbridge.core.discovery.DiscoveryContext;
import io.fedbridge.core.discovery.PeerInfo;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Creates {@link StaticDiscoveryAgent}s for network connector URIs with the scheme {@code static}:
 *
 * <pre>{@code
 * static:(tcp://broker-a:61613,ssl://broker-b:61614)?maxReconnectDelay=10s&maxReconnectAttempts=0
 * }</pre>
 *
 * The components are the peers: plain transport URIs ({@code tcp://}, {@code ssl://}, {@code vm://}), options
 * included; a URI listed twice is one peer. The agent's options are {@link ReconnectConfig}'s, with ActiveMQ's
 * names and defaults: {@code initialReconnectDelay} (1 s), {@code maxReconnectDelay} (30 s),
 * {@code useExponentialBackOff} (true), {@code backOffMultiplier} (2), {@code maxReconnectAttempts}
 * (0 = never give up) and {@code minConnectTime} (5 s). Plain numbers are milliseconds; {@code 250ms},
 * {@code 5s} and {@code PT5S} work too.
 *
 * <p>Registered in {@code META-INF/services}; found by {@link io.fedbridge.core.discovery.DiscoveryAgents}.
 * Stateless and thread-safe.
 */
public final class StaticDiscoveryAgentProvider implements DiscoveryAgentProvider {

    /** The URI scheme this provider serves. */
    public static final String SCHEME = "static";

    /** Schemes a peer URI may have. */
    public static final Set<String> TRANSPORT_SCHEMES = Set.of("tcp", "ssl", "vm");

    private static final String EXAMPLE = "static:(tcp://host1:61613,tcp://host2:61613)";

    /** For {@link java.util.ServiceLoader}. */
    public StaticDiscoveryAgentProvider() {
    }

    @Override
    public String scheme() {
        return SCHEME;
    }

    @Override
    public Set<String> optionNames() {
        return ReconnectConfig.OPTION_NAMES;
    }

    /**
     * Parses the peers from {@code uri}'s components and the reconnect options from {@code options}.
     *
     * @throws IllegalArgumentException if {@code uri} is not a {@code static:(...)} URI listing plain transport
     *                                  URIs, or an option is unknown, malformed or conflicts with another; the
     *                                  message quotes the URI (secrets masked) and, for an unknown option, lists
     *                                  {@code validOptions}
     */
    @Override
    public DiscoveryAgent create(CompositeUri uri, Map<String, String> options, Set<String> validOptions,
                                 DiscoveryContext context) {
        Objects.requireNonNull(uri, "uri");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(validOptions, "validOptions");
        Objects.requireNonNull(context, "context");
        String where = "network connector URI '" + uri + "'";
        if (!SCHEME.equals(uri.scheme())) {
            throw new IllegalArgumentException("scheme of " + where + " must be '" + SCHEME + "', but was '"
                    + uri.scheme() + "'");
        }
        List<PeerInfo> peers = peers(uri, where);
        return StaticDiscoveryAgent.of(peers, reconnectConfig(options, validOptions, where), context);
    }

    private static List<PeerInfo> peers(CompositeUri uri, String where) {
        if (!uri.isComposite() || uri.components().isEmpty()) {
            throw new IllegalArgumentException(where + " must list its peers in parentheses, e.g. " + EXAMPLE
                    + ", but lists none");
        }
        Set<CompositeUri> distinct = new LinkedHashSet<>();
        for (CompositeUri peer : uri.components()) {
            if (peer.isComposite()) {
                throw new IllegalArgumentException("peer '" + peer + "' in " + where
                        + " must be a plain transport URI (tcp://, ssl:// or vm://), but is composite");
            }
            if (!TRANSPORT_SCHEMES.contains(peer.scheme())) {
                throw new IllegalArgumentException("peer '" + peer + "' in " + where
                        + " must have scheme tcp, ssl or vm, but was '" + peer.scheme() + "'");
            }
            distinct.add(peer); // equal URIs (option order aside) are one peer
        }
        List<PeerInfo> peers = new ArrayList<>(distinct.size());
        for (CompositeUri peer : distinct) {
            peers.add(PeerInfo.of(peer.toUnmaskedString())); // handed on to the connector, so with its secrets
        }
        return peers;
    }

    private static ReconnectConfig reconnectConfig(Map<String, String> options, Set<String> validOptions, String where) {
        ReconnectConfig.Builder builder = ReconnectConfig.builder();
        UriOptions binder = UriOptions.bind(options, where);
        builder.bind(binder);
        // The other valid options (the bridge's) were taken out of `options` by the caller, which binds them
        // itself. Claiming them here makes finish() list every option valid on this URI and suggest any of them.
        for (String other : validOptions) {
            if (!ReconnectConfig.OPTION_NAMES.contains(other)) {
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
