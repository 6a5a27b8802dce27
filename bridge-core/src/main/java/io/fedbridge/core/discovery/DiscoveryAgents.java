package io.fedbridge.core.discovery;

import io.fedbridge.core.uri.CompositeUri;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;

/** Finds the discovery agent for a URI's scheme among the providers on the class path. */
public final class DiscoveryAgents {

    private DiscoveryAgents() {
    }

    /** Every provider on the class path, by scheme. */
    public static Map<String, DiscoveryAgentProvider> providers() {
        Map<String, DiscoveryAgentProvider> m = new TreeMap<>();
        for (DiscoveryAgentProvider p : ServiceLoader.load(DiscoveryAgentProvider.class, DiscoveryAgents.class.getClassLoader())) {
            m.putIfAbsent(p.scheme(), p);
        }
        return m;
    }

    /**
     * The provider for {@code uri}'s scheme.
     *
     * @throws IllegalArgumentException naming the scheme and listing the known ones
     */
    public static DiscoveryAgentProvider provider(CompositeUri uri) {
        Map<String, DiscoveryAgentProvider> all = providers();
        DiscoveryAgentProvider p = all.get(uri.scheme());
        if (p == null) {
            throw new IllegalArgumentException("unknown discovery scheme '" + uri.scheme() + "' in network connector URI '"
                    + uri + "'; known schemes are: " + (all.isEmpty() ? "(none on the class path)" : String.join(", ", all.keySet())));
        }
        return p;
    }

    public static Set<String> schemes() {
        return providers().keySet();
    }
}
