/**
 * The {@code multicast://} discovery agent: brokers announce themselves to an IPv4 multicast group and bridge to
 * every other broker announcing itself there, so a federation forms without a list of peers, as with ActiveMQ's
 * multicast discovery.
 *
 * <pre>{@code
 * multicast://239.255.2.3:6155?group=orders&interface=eth0&secretFile=/etc/fedbridge/orders.secret&heartbeatInterval=500ms
 * }</pre>
 *
 * Without {@code interface} the agent uses the loopback interface, so only brokers on the same machine find each
 * other. On any other interface the group needs a shared secret ({@code secret} or {@code secretFile}): announcements
 * are then signed with HMAC-SHA256, and unsigned, forged, stale or replayed ones are ignored and counted. Options
 * and the datagram format are described in
 * {@link io.fedbridge.discovery.multicast.MulticastDiscoveryAgentProvider}.
 *
 * <p>The module has no front door of its own: the provider is found through {@link java.util.ServiceLoader} by
 * {@link io.fedbridge.core.discovery.DiscoveryAgents} for the URI scheme {@code multicast}.
 */
package io.fedbridge.discovery.multicast;
