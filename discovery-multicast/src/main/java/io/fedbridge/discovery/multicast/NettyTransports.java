package io.fedbridge.discovery.multicast;

import io.fedbridge.discovery.multicast.internal.AnnouncementHandler;
import io.fedbridge.discovery.multicast.internal.MulticastEndpoint;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Opens the real network side: an IPv4 multicast socket on the configured interface, read on a thread of its own. */
final class NettyTransports implements MulticastDiscoveryAgent.TransportFactory {

    // The agent's logger: these lines are part of its story (which interface, which socket).
    private static final Logger LOG = LoggerFactory.getLogger(MulticastDiscoveryAgent.class);

    /** How long {@link MulticastDiscoveryAgent#close()} waits for the departure datagram to leave. */
    private static final Duration DEPARTURE_TIMEOUT = Duration.ofSeconds(1);

    private final MulticastDiscoveryConfig config;
    private final String brokerName;
    private final Duration openTimeout;

    NettyTransports(MulticastDiscoveryConfig config, String brokerName, Duration openTimeout) {
        this.config = config;
        this.brokerName = brokerName;
        this.openTimeout = openTimeout;
    }

    @Override
    public MulticastDiscoveryAgent.Transport open(AnnouncementHandler.Sink sink) throws IOException {
        NetworkInterface nic = MulticastEndpoint.networkInterface(config.networkInterface());
        String display = "multicast discovery of group '" + config.group() + "' on " + config.endpoint();
        // Checked before any socket exists, so that a refused agent has sent nothing on that network.
        requireSecretOffLoopback(nic.getName(), nic.isLoopback(), config.secret());
        if (config.networkInterface() == null) {
            LOG.info("{}: no interface given, using the loopback interface {}: only brokers on this machine will be "
                    + "found; set interface=<name> to find brokers on the network", display, nic.getName());
        }
        EventLoopGroup loop = new MultiThreadIoEventLoopGroup(1,
                new DefaultThreadFactory("fedbridge-" + brokerName + "-multicast", true), NioIoHandler.newFactory());
        MulticastEndpoint endpoint;
        try {
            endpoint = MulticastEndpoint.open(new InetSocketAddress(config.address(), config.port()), nic,
                    config.timeToLive(), config.discover(), loop, sink, openTimeout);
        } catch (IOException | RuntimeException e) {
            loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IOException(e.getMessage() + " (interface " + nic.getName() + ")", e);
        }
        LOG.info("{}: on interface {} (socket {}), timeToLive {}", display, nic.getName(),
                endpoint.localAddress(), config.timeToLive());
        return new MulticastDiscoveryAgent.Transport() {
            @Override
            public void send(Supplier<byte[]> sealer) {
                endpoint.send(sealer);
            }

            @Override
            public void sendAndWait(Supplier<byte[]> sealer) {
                endpoint.sendAndWait(sealer, DEPARTURE_TIMEOUT);
            }

            @Override
            public void close() {
                endpoint.close();
                loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
            }
        };
    }

    /**
     * Refuses unsigned discovery on an interface other than loopback: there, anyone who can send to the group could
     * make this broker bridge to a URI of their choice.
     *
     * @throws MulticastDiscoveryException saying so and how to fix it, if {@code secret} is null and the interface
     *                                     is not loopback
     */
    static void requireSecretOffLoopback(String interfaceName, boolean loopback, MulticastSecret secret) {
        if (!loopback && secret == null) {
            throw new MulticastDiscoveryException("multicast discovery on interface " + interfaceName + " needs secret= "
                    + "or secretFile=: without one, anyone on that network can make this broker bridge to a URI of "
                    + "their choice (give every broker of the group the same secret of at least "
                    + MulticastSecret.MIN_LENGTH + " characters, or leave interface unset for the loopback interface)");
        }
    }
}
