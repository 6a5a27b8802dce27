/**
 * The {@code static:(uri,uri,...)} discovery agent: a fixed list of peers, each reconnected with back-off
 * after a failure, as ActiveMQ's static discovery does.
 *
 * <pre>{@code
 * static:(tcp://broker-a:61613,tcp://broker-b:61613)?initialReconnectDelay=1s&maxReconnectDelay=30s
 * }</pre>
 *
 * The module has no front door of its own: {@link io.fedbridge.discovery.staticlist.StaticDiscoveryAgentProvider}
 * is found through {@link java.util.ServiceLoader} by {@link io.fedbridge.core.discovery.DiscoveryAgents} for the
 * URI scheme {@code static}.
 */
package io.fedbridge.discovery.staticlist;
