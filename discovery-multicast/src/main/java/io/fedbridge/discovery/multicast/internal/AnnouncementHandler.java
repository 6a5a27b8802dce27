package io.fedbridge.discovery.multicast.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each received datagram's bytes to a {@link Sink}, which decodes and judges it
 * ({@link AnnouncementCodec}); the packet is released when the sink returns.
 */
public final class AnnouncementHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    /** Where received datagrams go; called on the channel's event loop, so implementations must not block. */
    public interface Sink {
        /** {@code datagram} is valid only during the call: read it, never keep it. */
        void received(ByteBuffer datagram, InetSocketAddress sender);
    }

    private static final Logger LOG = LoggerFactory.getLogger(AnnouncementHandler.class);

    private final Sink sink;

    public AnnouncementHandler(Sink sink) {
        this.sink = sink;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        sink.received(packet.content().nioBuffer(), packet.sender());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A datagram socket has no connection to lose: an error reading one datagram must not stop the next.
        LOG.warn("multicast discovery: reading a datagram on {} failed: {}", ctx.channel().localAddress(), cause.toString());
    }
}
