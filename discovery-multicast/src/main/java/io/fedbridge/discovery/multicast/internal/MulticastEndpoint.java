package io.fedbridge.discovery.multicast.internal;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.SocketProtocolFamily;
import io.netty.channel.socket.nio.NioChannelOption;
import io.netty.channel.socket.nio.NioDatagramChannel;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An IPv4 UDP socket for one multicast group on one network interface: outgoing datagrams leave through that
 * interface only ({@code IP_MULTICAST_IF}) with the given TTL, and the group is joined on that interface only.
 * Loopback of multicast stays on, so brokers on one machine hear each other.
 *
 * <p>Thread-safe; {@link #send} may be called from any thread.
 */
public final class MulticastEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MulticastEndpoint.class);

    /** Receive buffer per datagram: larger than {@link Announcement#MAX_BYTES}, so an oversized one is seen as such. */
    private static final int RECEIVE_BUFFER = 2048;

    private static final Pattern IPV4_LITERAL = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

    private final DatagramChannel channel;
    private final InetSocketAddress group;

    private MulticastEndpoint(DatagramChannel channel, InetSocketAddress group) {
        this.channel = channel;
        this.group = group;
    }

    /**
     * Opens the socket and, if {@code receive}, binds it to the group's port and joins the group; otherwise it
     * binds an ephemeral port and only sends.
     *
     * @param group   an IPv4 multicast address and port
     * @param nic     the interface to send and receive on
     * @param ttl     {@code IP_MULTICAST_TTL}, 0 to 255
     * @param receive whether to join the group and hand received datagrams to {@code sink}
     * @param timeout how long binding and joining may take each
     * @throws IOException if the socket cannot be bound or the group joined (nothing is left open)
     */
    public static MulticastEndpoint open(InetSocketAddress group, NetworkInterface nic, int ttl, boolean receive,
                                         EventLoopGroup loop, AnnouncementHandler.Sink sink, Duration timeout)
            throws IOException {
        ChannelFactory<NioDatagramChannel> factory = () -> new NioDatagramChannel(SocketProtocolFamily.INET);
        Bootstrap bootstrap = new Bootstrap().group(loop)
                .channelFactory(factory)
                .option(ChannelOption.SO_REUSEADDR, true)
                .option(ChannelOption.IP_MULTICAST_IF, nic)
                .option(ChannelOption.IP_MULTICAST_TTL, ttl)
                .option(ChannelOption.RECVBUF_ALLOCATOR, new FixedRecvByteBufAllocator(RECEIVE_BUFFER))
                // The JDK option itself: Netty's IP_MULTICAST_LOOP_DISABLED maps to it unnegated for NIO channels.
                .option(NioChannelOption.of(StandardSocketOptions.IP_MULTICAST_LOOP), true)
                .option(ChannelOption.AUTO_READ, receive)
                .handler(new AnnouncementHandler(sink));
        if (!receive) {
            DatagramChannel channel = bind(bootstrap, new InetSocketAddress(0), timeout);
            return new MulticastEndpoint(channel, group);
        }
        DatagramChannel channel;
        try {
            // Bound to the group address, the socket gets this group's datagrams only, not those of every group
            // joined on this port by any socket of the host (Linux delivers those to wildcard-bound sockets).
            channel = bind(bootstrap, group, timeout);
        } catch (IOException e) {
            // Some systems (Windows) cannot bind a multicast address; the wildcard address works everywhere.
            LOG.debug("cannot bind multicast address {} ({}); binding port {} on every address", group, e.getMessage(),
                    group.getPort());
            try {
                channel = bind(bootstrap, new InetSocketAddress(group.getPort()), timeout);
            } catch (IOException again) {
                e.addSuppressed(again);
                throw e;
            }
        }
        MulticastEndpoint endpoint = new MulticastEndpoint(channel, group);
        ChannelFuture joined = channel.joinGroup(group, nic);
        if (!joined.awaitUninterruptibly(timeout.toMillis(), TimeUnit.MILLISECONDS) || !joined.isSuccess()) {
            endpoint.close();
            throw new IOException("cannot join multicast group " + group.getAddress().getHostAddress() + " on interface "
                    + nic.getName() + ": " + failure(joined, timeout), joined.cause());
        }
        return endpoint;
    }

    private static DatagramChannel bind(Bootstrap bootstrap, InetSocketAddress address, Duration timeout)
            throws IOException {
        ChannelFuture bound = bootstrap.bind(address);
        if (!bound.awaitUninterruptibly(timeout.toMillis(), TimeUnit.MILLISECONDS) || !bound.isSuccess()) {
            if (bound.channel().isRegistered()) {
                bound.channel().close();
            }
            throw new IOException("cannot bind UDP " + address.getAddress().getHostAddress() + ":" + address.getPort()
                    + ": " + failure(bound, timeout), bound.cause());
        }
        return (DatagramChannel) bound.channel();
    }

    private static String failure(ChannelFuture future, Duration timeout) {
        return future.isDone() ? String.valueOf(future.cause()) : "no answer within " + timeout;
    }

    /** Sends {@code datagram} to the group; a failure is logged at DEBUG, as for any lost datagram. */
    public void send(byte[] datagram) {
        send(() -> datagram);
    }

    /**
     * Sends the datagram {@code sealer} makes, calling it on the socket's I/O thread just before the datagram leaves:
     * datagrams leave in the order they were sealed, whichever threads send them. (Sealed on the caller's thread, a
     * heartbeat sealed on a timer could leave after a reply sealed later on the I/O thread, and a receiver would take
     * the heartbeat's lower sequence number for a replay.) A failure is logged at DEBUG, as for any lost datagram.
     */
    public void send(Supplier<byte[]> sealer) {
        write(sealer).addListener(f -> {
            if (!f.isSuccess()) {
                LOG.debug("cannot send to multicast group {}: {}", group, f.cause().toString());
            }
        });
    }

    /** Sends {@code datagram} and waits, at most {@code timeout}, until it has left. */
    public boolean sendAndWait(byte[] datagram, Duration timeout) {
        return sendAndWait(() -> datagram, timeout);
    }

    /** As {@link #send(Supplier)}, and waits, at most {@code timeout}, until the datagram has left. */
    public boolean sendAndWait(Supplier<byte[]> sealer, Duration timeout) {
        ChannelFuture sent = write(sealer);
        return sent.awaitUninterruptibly(timeout.toMillis(), TimeUnit.MILLISECONDS) && sent.isSuccess();
    }

    /** Always a task on the event loop, even from it: tasks run in submission order, so seals are in order. */
    private ChannelFuture write(Supplier<byte[]> sealer) {
        ChannelPromise promise = channel.newPromise();
        try {
            channel.eventLoop().execute(() -> {
                try {
                    channel.writeAndFlush(new DatagramPacket(Unpooled.wrappedBuffer(sealer.get()), group), promise);
                } catch (RuntimeException e) {
                    promise.tryFailure(e);
                }
            });
        } catch (RejectedExecutionException e) {
            promise.tryFailure(e);   // the loop is shutting down: the datagram is lost, as any may be
        }
        return promise;
    }

    /** The local address the socket is bound to. */
    public InetSocketAddress localAddress() {
        return channel.localAddress();
    }

    /** Closes the socket (leaving the group); waits at most a second. */
    @Override
    public void close() {
        channel.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
    }

    // ---------------------------------------------------------------------------------------------
    // Interfaces

    /**
     * The interface named {@code spec} ({@code lo}, {@code eth0}) or carrying the IPv4 address {@code spec}
     * ({@code 127.0.0.1}); null or empty selects the loopback interface. It must be up and have an IPv4 address.
     *
     * @throws IOException naming {@code spec} and listing the interfaces there are
     */
    public static NetworkInterface networkInterface(String spec) throws IOException {
        NetworkInterface nic;
        if (spec == null || spec.isEmpty()) {
            nic = loopback();
            if (nic == null) {
                throw new IOException("no loopback interface with an IPv4 address is up; set interface=<name>, one of "
                        + interfaceNames());
            }
        } else {
            nic = NetworkInterface.getByName(spec);
            if (nic == null && IPV4_LITERAL.matcher(spec).matches()) {
                nic = NetworkInterface.getByInetAddress(InetAddress.getByName(spec)); // a literal: no DNS look-up
            }
            if (nic == null) {
                throw new IOException("no network interface '" + spec + "'; interfaces are " + interfaceNames());
            }
        }
        if (!nic.isUp()) {
            throw new IOException("network interface " + nic.getName() + " is down");
        }
        if (ipv4Address(nic) == null) {
            throw new IOException("network interface " + nic.getName() + " has no IPv4 address");
        }
        return nic;
    }

    /** The first IPv4 address of {@code nic}, or null. */
    public static Inet4Address ipv4Address(NetworkInterface nic) {
        for (InetAddress a : Collections.list(nic.getInetAddresses())) {
            if (a instanceof Inet4Address v4) {
                return v4;
            }
        }
        return null;
    }

    private static NetworkInterface loopback() throws SocketException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (nic.isLoopback() && nic.isUp() && ipv4Address(nic) != null) {
                return nic;
            }
        }
        return null;
    }

    private static List<String> interfaceNames() throws SocketException {
        List<String> names = new ArrayList<>();
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            names.add(nic.getName());
        }
        Collections.sort(names);
        return names;
    }
}
