package io.fedbridge.discovery.multicast;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Multicast on the loopback interface for tests: a random group address, port and group name per test, so that
 * tests running at the same time on this machine never hear each other; and a raw sender for hand-made datagrams.
 * Nothing here ever leaves the machine.
 */
final class Loopback implements AutoCloseable {

    final String address;
    final int port;
    final String group;
    private final DatagramChannel sender;

    private Loopback(String address, int port, String group) throws IOException {
        this.address = address;
        this.port = port;
        this.group = group;
        NetworkInterface lo = NetworkInterface.getByInetAddress(InetAddress.getLoopbackAddress());
        sender = DatagramChannel.open(StandardProtocolFamily.INET);
        sender.setOption(StandardSocketOptions.IP_MULTICAST_IF, lo);
        sender.setOption(StandardSocketOptions.IP_MULTICAST_TTL, 0);
        sender.setOption(StandardSocketOptions.IP_MULTICAST_LOOP, true);
    }

    static Loopback random() throws IOException {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new Loopback("239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255), r.nextInt(20000, 40000),
                "t-" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36));
    }

    /** A config for this group on {@code lo} with test timings (heartbeat 100 ms, expiry 3). */
    MulticastDiscoveryConfig.Builder config() {
        return MulticastDiscoveryConfig.builder().address(address).port(port).group(group).networkInterface("lo")
                .heartbeatInterval(java.time.Duration.ofMillis(100)).expiry(3);
    }

    /** {@code multicast://ADDRESS:PORT?group=GROUP&interface=lo&...} with test timings. */
    String uri() {
        return "multicast://" + address + ":" + port + "?group=" + group + "&interface=lo&heartbeatInterval=100&expiry=3";
    }

    /** Sends a datagram to the group, on {@code lo}. */
    void send(byte[] datagram) throws IOException {
        sender.send(ByteBuffer.wrap(datagram), new InetSocketAddress(InetAddress.getByName(address), port));
    }

    @Override
    public void close() throws IOException {
        sender.close();
    }
}
