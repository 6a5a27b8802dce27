package io.fedbridge.core.discovery;

import io.fedbridge.core.uri.CompositeUri;
import java.util.Map;
import java.util.Set;

/**
 * Creates discovery agents for one URI scheme. Register an implementation in
 * {@code META-INF/services/io.fedbridge.core.discovery.DiscoveryAgentProvider}.
 */
public interface DiscoveryAgentProvider {

    /** The URI scheme, e.g. {@code static} or {@code multicast}. */
    String scheme();

    /** The option names this agent takes (for error messages listing every valid option). */
    Set<String> optionNames();

    /**
     * Creates an agent.
     *
     * @param uri      the discovery URI, options included
     * @param options  the URI's options that are not bridge options: the agent's own (unknown ones are an
     *                 error naming them and listing {@code validOptions})
     * @param validOptions every option valid on this URI (bridge and agent options), for error messages
     */
    DiscoveryAgent create(CompositeUri uri, Map<String, String> options, Set<String> validOptions, DiscoveryContext context);
}
