package io.fedbridge.core.bridge;

import io.fedbridge.core.uri.UriOptions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a bridge names destinations and subscribes on one broker: the options {@code dialect}, {@code destinationMap},
 * {@code durableTopicSubscriptions} and {@code durableSubscriptionName} of that broker's URI
 * ({@code static:(tcp://rabbit:61613?dialect=rabbitmq&host=/)}); they apply to the connection to that URI only, so
 * each peer of a network connector has its own. Immutable.
 *
 * @param dialect                   how fedbridge's names and headers become the broker's (default {@link Dialect#AUTO})
 * @param destinationMap            explicit renames, applied before the dialect (default none)
 * @param durableTopicSubscriptions whether the bridge reads a statically included topic from this broker, when it is not
 *                                  fedbridge, through a durable subscription (default true), so what is published while
 *                                  the link is down waits for it. The subscription outlives the bridge: see
 *                                  docs/foreign-brokers.md for how an operator removes it
 * @param durableSubscriptionName   the stable name those subscriptions derive from: the CONNECT {@code client-id} (Artemis,
 *                                  ActiveMQ) and the prefix of RabbitMQ's subscription queues; null (the default) derives
 *                                  one from the bridge's name ({@code fedbridge.} and the name with other characters than
 *                                  letters, digits, {@code .}, {@code _}, {@code -} replaced). Letters, digits, {@code .},
 *                                  {@code _}, {@code -} only
 */
public record PeerProfile(Dialect dialect, DestinationMap destinationMap, boolean durableTopicSubscriptions,
                          String durableSubscriptionName) {

    /** The peer URI options this record reads. */
    public static final Set<String> OPTION_NAMES = Set.of("dialect", "destinationMap", "durableTopicSubscriptions",
            "durableSubscriptionName");

    /** Automatic dialect, no renames, durable topic subscriptions with a derived name. */
    public static final PeerProfile AUTO = new PeerProfile(Dialect.AUTO, DestinationMap.NONE);

    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile("[A-Za-z0-9._-]{1,200}");

    public PeerProfile {
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(destinationMap, "destinationMap");
        if (durableSubscriptionName != null && !NAME.matcher(durableSubscriptionName).matches()) {
            throw new IllegalArgumentException("durableSubscriptionName must be 1 to 200 letters, digits, '.', '_' or '-', but was '"
                    + durableSubscriptionName + "'");
        }
    }

    /** A profile with durable topic subscriptions under a derived name. */
    public PeerProfile(Dialect dialect, DestinationMap destinationMap) {
        this(dialect, destinationMap, true, null);
    }

    /** Reads {@link #OPTION_NAMES} from a URI's options (others are ignored); {@code context} names the URI in errors. */
    public static PeerProfile fromOptions(Map<String, String> options, String context) {
        Dialect[] dialect = {Dialect.AUTO};
        DestinationMap[] map = {DestinationMap.NONE};
        boolean[] durable = {true};
        String[] durableName = {null};
        Map<String, String> mine = new java.util.LinkedHashMap<>(options);
        mine.keySet().retainAll(OPTION_NAMES);
        UriOptions.bind(mine, context)
                .enumValue("dialect", Dialect.class, v -> dialect[0] = v)
                .value("destinationMap", DestinationMap::parse, v -> map[0] = v)
                .bool("durableTopicSubscriptions", v -> durable[0] = v)
                .string("durableSubscriptionName", v -> durableName[0] = v)
                .finish();
        try {
            return new PeerProfile(dialect[0], map[0], durable[0], durableName[0]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(context + ": " + e.getMessage(), e);
        }
    }

    /**
     * The durable subscriptions' stable name on this broker for a bridge called {@code bridgeName}:
     * {@link #durableSubscriptionName} or one derived from {@code bridgeName}.
     */
    public String stableSubscriptionName(String bridgeName) {
        if (durableSubscriptionName != null) {
            return durableSubscriptionName;
        }
        String s = "fedbridge." + bridgeName.replaceAll("[^A-Za-z0-9._-]+", "_");
        // Long names (a peer URI with many options) keep their start and a hash of the whole, so they stay stable and distinct.
        return s.length() <= 120 ? s : s.substring(0, 110) + "_" + Integer.toHexString(bridgeName.hashCode());
    }
}
