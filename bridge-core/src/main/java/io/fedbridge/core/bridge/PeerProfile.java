package io.fedbridge.core.bridge;

import io.fedbridge.core.uri.UriOptions;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * How a bridge names destinations on one broker: the options {@code dialect} and {@code destinationMap} of that
 * broker's URI ({@code static:(tcp://rabbit:61613?dialect=rabbitmq&host=/)}); they apply to the connection to
 * that URI only, so each peer of a network connector has its own. Immutable.
 *
 * @param dialect        how fedbridge's names and headers become the broker's (default {@link Dialect#AUTO})
 * @param destinationMap explicit renames, applied before the dialect (default none)
 */
public record PeerProfile(Dialect dialect, DestinationMap destinationMap) {

    /** The peer URI options this record reads. */
    public static final Set<String> OPTION_NAMES = Set.of("dialect", "destinationMap");

    /** Automatic dialect, no renames. */
    public static final PeerProfile AUTO = new PeerProfile(Dialect.AUTO, DestinationMap.NONE);

    public PeerProfile {
        Objects.requireNonNull(dialect, "dialect");
        Objects.requireNonNull(destinationMap, "destinationMap");
    }

    /** Reads {@link #OPTION_NAMES} from a URI's options (others are ignored); {@code context} names the URI in errors. */
    public static PeerProfile fromOptions(Map<String, String> options, String context) {
        Dialect[] dialect = {Dialect.AUTO};
        DestinationMap[] map = {DestinationMap.NONE};
        Map<String, String> mine = new java.util.LinkedHashMap<>(options);
        mine.keySet().retainAll(OPTION_NAMES);
        UriOptions.bind(mine, context)
                .enumValue("dialect", Dialect.class, v -> dialect[0] = v)
                .value("destinationMap", DestinationMap::parse, v -> map[0] = v)
                .finish();
        return new PeerProfile(dialect[0], map[0]);
    }
}
