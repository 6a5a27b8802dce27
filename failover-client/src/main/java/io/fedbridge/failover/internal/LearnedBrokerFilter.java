package io.fedbridge.failover.internal;

import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverClusterConfig;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides which announced brokers a failover client adopts: none reached over a weaker transport than the connection
 * the announcement came over, none outside {@code updateURIsAllowed}. Brokers the user configured are always kept.
 * Each ignored URI is counted every time it is announced and logged at WARN the first time, with the reason.
 * Confined to the client's engine, but for {@link #ignored()}.
 */
final class LearnedBrokerFilter {

    private static final Logger LOG = LoggerFactory.getLogger(LearnedBrokerFilter.class);
    /** URIs warned about, at most this many (an announcer cannot grow the set without bound). */
    private static final int MAX_WARNED = 1024;

    private final FailoverClusterConfig config;
    private final String clientName;
    private final Set<String> warned = new HashSet<>();
    private final AtomicLong ignored = new AtomicLong();

    LearnedBrokerFilter(FailoverClusterConfig config, String clientName) {
        this.config = config;
        this.clientName = clientName;
    }

    /** The announced brokers the client may use, in announced order; those in the failover URI always pass. */
    List<CompositeUri> accept(List<CompositeUri> announced, CompositeUri via, BrokerList brokers) {
        List<CompositeUri> accepted = new ArrayList<>();
        for (CompositeUri u : announced) {
            String why = brokers.isConfigured(u) ? null : reason(u, via, config);
            if (why == null) {
                accepted.add(u);
                continue;
            }
            ignored.incrementAndGet();
            String key = u.withoutOptions().toString();
            if (warned.size() < MAX_WARNED && warned.add(key)) {
                LOG.warn("{}: ignoring learned broker {} from {}: {}", clientName, key, via.withoutOptions(), why);
            } else {
                LOG.debug("{}: ignoring learned broker {} from {}: {}", clientName, key, via.withoutOptions(), why);
            }
        }
        return accepted;
    }

    /** Learned broker URIs ignored so far, counted per announcement. */
    long ignored() {
        return ignored.get();
    }

    /** Why {@code learned}, announced over a connection to {@code via}, must not be used; null if it may. */
    static String reason(CompositeUri learned, CompositeUri via, FailoverClusterConfig config) {
        String to = learned.scheme();
        String from = via.scheme();
        if (to.equals("vm") && !from.equals("vm")) {
            return "a vm:// broker is taken only from a vm:// connection";
        }
        if (rank(to) < rank(from)) {
            return "would downgrade from " + from + " to " + to;
        }
        if (!config.allows(learned)) {
            return "not matched by updateURIsAllowed=" + String.join(",", config.updateURIsAllowed());
        }
        return null;
    }

    /** How private a transport is: tcp < ssl < vm (in the JVM, never on the network). */
    private static int rank(String scheme) {
        return switch (scheme) {
            case "vm" -> 2;
            case "ssl" -> 1;
            default -> 0;
        };
    }
}
