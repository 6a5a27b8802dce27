package io.fedbridge.failover;

import io.fedbridge.core.uri.CompositeUri;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a failover client takes from the brokers a broker announces ({@code fedbridge-cluster-uris} in CONNECTED and
 * on {@code /topic/fedbridge.advisory.cluster}). Only the broker the client is connected to is heard, and a learned
 * broker is never reached over a weaker transport than that connection: over {@code ssl://} only {@code ssl://}
 * brokers, over {@code tcp://} {@code tcp://} and {@code ssl://}, {@code vm://} brokers only over {@code vm://} (and
 * over {@code vm://} nothing else). Options in a learned URI are dropped: a learned broker is reached with the
 * failover URI's {@code nested.*} options (TLS trust, host-name verification, timeouts), never the announcer's.
 * Brokers listed in the failover URI itself are never filtered.
 *
 * <pre>{@code
 * failover:(ssl://a.prod.example.com:61614)?updateURIsAllowed=*.prod.example.com:*&updateURIsCredentials=true
 * }</pre>
 *
 * @param updateURIsSupported   learn brokers from announcements, default true (ActiveMQ's option)
 * @param rebalanceUpdateURIs   move when an announcement asks clients to rebalance, default true (ActiveMQ's option)
 * @param updateURIsAllowed     {@code host:port} glob patterns ({@code *} any run of characters, {@code ?} one; a
 *                              pattern without {@code :port} matches any port; {@code [v6]:port} for IPv6; a
 *                              {@code vm://NAME} URI is matched by its name); a learned broker matching none is
 *                              ignored. Empty (default): no restriction
 * @param updateURIsCredentials send the configured {@code login} and {@code passcode} to learned brokers too, default
 *                              false: a learned broker gets a CONNECT without them (a broker that is also listed in
 *                              the failover URI is not a learned one)
 */
public record FailoverClusterConfig(boolean updateURIsSupported, boolean rebalanceUpdateURIs,
                                    List<String> updateURIsAllowed, boolean updateURIsCredentials) {

    public FailoverClusterConfig {
        updateURIsAllowed = List.copyOf(updateURIsAllowed == null ? List.of() : updateURIsAllowed);
        for (String p : updateURIsAllowed) {
            HostPortGlob.parse(p);
        }
    }

    public static FailoverClusterConfig ofDefaults() {
        return new FailoverClusterConfig(true, true, List.of(), false);
    }

    /** Whether {@code updateURIsAllowed} lets the client use the learned broker {@code uri} (always, if it is empty). */
    public boolean allows(CompositeUri uri) {
        if (updateURIsAllowed.isEmpty()) {
            return true;
        }
        String host = uri.host() == null ? "" : uri.host();
        String port = uri.hasPort() ? Integer.toString(uri.port()) : "";
        for (String p : updateURIsAllowed) {
            if (HostPortGlob.parse(p).matches(host, port)) {
                return true;
            }
        }
        return false;
    }

    /** One {@code updateURIsAllowed} pattern. */
    private record HostPortGlob(Pattern host, Pattern port) {

        static HostPortGlob parse(String pattern) {
            String p = pattern == null ? "" : pattern.trim();
            String host;
            String port = null;
            if (p.startsWith("[")) {
                int close = p.indexOf(']');
                if (close < 0 || (close + 1 < p.length() && p.charAt(close + 1) != ':')) {
                    throw invalid(pattern);
                }
                host = p.substring(1, close);
                port = close + 1 < p.length() ? p.substring(close + 2) : null;
            } else {
                int colon = p.lastIndexOf(':');
                host = colon < 0 ? p : p.substring(0, colon);
                port = colon < 0 ? null : p.substring(colon + 1);
            }
            if (host.isEmpty() || host.indexOf(':') >= 0 && !p.startsWith("[") || (port != null && !port.matches("[0-9*?]+"))) {
                throw invalid(pattern);
            }
            return new HostPortGlob(glob(host.toLowerCase(Locale.ROOT)), port == null ? null : glob(port));
        }

        boolean matches(String h, String p) {
            return host.matcher(h.toLowerCase(Locale.ROOT)).matches() && (port == null || port.matcher(p).matches());
        }

        private static Pattern glob(String g) {
            List<String> parts = new ArrayList<>();
            StringBuilder literal = new StringBuilder();
            for (char c : g.toCharArray()) {
                if (c == '*' || c == '?') {
                    parts.add(Pattern.quote(literal.toString()));
                    literal.setLength(0);
                    parts.add(c == '*' ? ".*" : ".");
                } else {
                    literal.append(c);
                }
            }
            parts.add(Pattern.quote(literal.toString()));
            return Pattern.compile(String.join("", parts));
        }

        private static IllegalArgumentException invalid(String pattern) {
            return new IllegalArgumentException("updateURIsAllowed must be host:port glob patterns such as "
                    + "*.prod.example.com:* or 127.0.0.1:61613, but was '" + pattern + "'");
        }
    }
}
