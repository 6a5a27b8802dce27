package io.fedbridge.failover.internal;

import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.uri.CompositeUri;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The federation's announcements of its brokers to clients, as the failover client reads them. The names are
 * {@link io.fedbridge.core.FederationHeaders}'s, the one place the federation extensions are defined.
 *
 * <ul>
 *   <li>CONNECTED carries {@value #CLUSTER_URIS}: the client connector URIs of the federation's brokers this broker
 *       is bridged with, its own first, comma-separated ({@code tcp://10.0.0.1:61613,tcp://10.0.0.2:61613}); empty
 *       if it has no peers. Its presence also says the broker publishes updates on {@value #CLUSTER_TOPIC}.</li>
 *   <li>A subscriber of {@value #CLUSTER_TOPIC} first gets one MESSAGE with the current list, then one per change,
 *       each carrying {@value #CLUSTER_URIS} and, when clients should spread out again, {@value #CLUSTER_REBALANCE}
 *       {@code :true}. The list's order is the broker's preference: a client asked to rebalance goes to the first
 *       URI (or a random one with {@code randomize=true}).</li>
 * </ul>
 */
public final class ClusterHeaders {

    public static final String CLUSTER_URIS = io.fedbridge.core.FederationHeaders.CLUSTER_URIS;
    public static final String CLUSTER_REBALANCE = io.fedbridge.core.FederationHeaders.CLUSTER_REBALANCE;
    public static final String CLUSTER_TOPIC = io.fedbridge.core.FederationHeaders.CLUSTER_TOPIC;

    private static final Logger LOG = LoggerFactory.getLogger(ClusterHeaders.class);

    private ClusterHeaders() {
    }

    /** The plain broker URIs (tcp://, ssl://, vm://) of a {@value #CLUSTER_URIS} value; anything else in it is skipped. */
    public static List<CompositeUri> parse(String value) {
        List<CompositeUri> uris = new ArrayList<>();
        if (value == null || value.isBlank()) {
            return uris;
        }
        for (String part : value.split(",")) {
            String s = part.trim();
            if (s.isEmpty()) {
                continue;
            }
            try {
                CompositeUri u = CompositeUri.parse(s);
                if (u.isComposite()) {
                    LOG.debug("ignoring announced broker URI '{}': not a plain broker URI", s);
                    continue;
                }
                ClientConfig.fromUri(u.withoutOptions().toString()); // a transport this client speaks, with host and port
                if (!uris.contains(u.withoutOptions())) {
                    uris.add(u.withoutOptions());
                }
            } catch (IllegalArgumentException e) {
                LOG.debug("ignoring announced broker URI '{}': {}", s, e.getMessage());
            }
        }
        return uris;
    }
}
