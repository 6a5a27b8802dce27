package io.fedbridge.core.bridge;

import java.util.ArrayList;
import java.util.List;

/**
 * Renames destinations between fedbridge and one broker, before the peer's {@link Dialect} applies: the
 * peer URI's {@code destinationMap} option, rules separated by {@code ';'}, each {@code fedbridgeName=peerName}.
 * A rule whose two sides end in {@code >} renames a prefix. The first matching rule wins; a name no rule
 * matches is left to the dialect.
 *
 * <pre>{@code
 * static:(tcp://rabbit:61613?host=/&destinationMap=/queue/orders=/amq/queue/orders;/topic/prices.>=/exchange/prices/>)
 * }</pre>
 *
 * A renamed destination is sent as written (the dialect adds no prefix or header to it). Immutable.
 *
 * @param rules the rules, in order
 */
public record DestinationMap(List<Rule> rules) {

    /** No renaming. */
    public static final DestinationMap NONE = new DestinationMap(List.of());

    /**
     * One rule.
     *
     * @param fedbridge the fedbridge name ({@code /queue/...} or {@code /topic/...}), or prefix ending in {@code >}
     * @param peer      the peer's name, or prefix ending in {@code >} when {@code fedbridge} is one
     */
    public record Rule(String fedbridge, String peer) {
        public Rule {
            if (fedbridge == null || !(fedbridge.startsWith("/queue/") || fedbridge.startsWith("/topic/"))) {
                throw new IllegalArgumentException("destinationMap rule's fedbridge side must start with /queue/ or /topic/, but was '"
                        + fedbridge + "'");
            }
            if (peer == null || peer.isEmpty()) {
                throw new IllegalArgumentException("destinationMap rule for '" + fedbridge + "' must name a peer destination, but was empty");
            }
            if (isPrefix(fedbridge) != isPrefix(peer)) {
                throw new IllegalArgumentException("destinationMap rule must end in '>' on both sides or neither, but was '"
                        + fedbridge + "=" + peer + "'");
            }
        }

        private static boolean isPrefix(String s) {
            return s.endsWith(">");
        }

        String toPeer(String name) {
            return rename(name, fedbridge, peer);
        }

        String fromPeer(String name) {
            return rename(name, peer, fedbridge);
        }

        private static String rename(String name, String from, String to) {
            if (!isPrefix(from)) {
                return name.equals(from) ? to : null;
            }
            String head = from.substring(0, from.length() - 1);
            return name.startsWith(head) ? to.substring(0, to.length() - 1) + name.substring(head.length()) : null;
        }
    }

    public DestinationMap {
        rules = List.copyOf(rules);
    }

    /** Parses {@code fedbridgeName=peerName;...} (see the class comment); the empty string is no rule. */
    public static DestinationMap parse(String value) {
        List<Rule> rules = new ArrayList<>();
        for (String entry : value.split(";")) {
            String e = entry.trim();
            if (e.isEmpty()) {
                continue;
            }
            int eq = e.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("destinationMap rules must be fedbridgeName=peerName, but had '" + e + "'");
            }
            rules.add(new Rule(e.substring(0, eq).trim(), e.substring(eq + 1).trim()));
        }
        return new DestinationMap(rules);
    }

    /** The peer's name for a fedbridge destination, or null if no rule renames it. */
    public String toPeer(String fedbridgeName) {
        for (Rule r : rules) {
            String n = r.toPeer(fedbridgeName);
            if (n != null) {
                return n;
            }
        }
        return null;
    }

    /** The fedbridge name of a peer destination, or null if no rule renames it. */
    public String fromPeer(String peerName) {
        for (Rule r : rules) {
            String n = r.fromPeer(peerName);
            if (n != null) {
                return n;
            }
        }
        return null;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Rule r : rules) {
            sb.append(sb.length() == 0 ? "" : ";").append(r.fedbridge()).append('=').append(r.peer());
        }
        return sb.toString();
    }
}
