/**
 * The {@code multicast://} discovery agent: brokers announce themselves to an IPv4 multicast group and bridge to
 * every other broker announcing itself there, so a federation forms without a list of peers, as with ActiveMQ's
 * multicast discovery.
 *
 * <pre>{@code
 * multicast://239.255.2.3:6155?group=orders&interface=eth0&heartbeatInterval=500ms&expiry=10
 * }</pre>
 *
 * Without {@code interface} the agent uses the loopback interface, so only brokers on the same machine find each
 * other. Options and the datagram format are described in
 * {@link io.fedbridge.discovery.multicast.MulticastDiscoveryAgentProvider}.
 *
 * <p>The module has no front door of its own: the provider is found through {@link java.util.ServiceLoader} by
 * {@link io.fedbridge.core.discovery.DiscoveryAgents} for the URI scheme {@code multicast}.
 */
package io.fedbridge.discovery.multicast;
