package io.fedbridge.discovery.multicast.internal;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import java.net.InetSocketAddress;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Decodes each received datagram and hands the result to a {@link Sink}; a malformed one is reported, not thrown. */
public final class AnnouncementHandler extends SimpleChannelInboundHandler<DatagramPacket> {

    /** Where decoded datagrams go; called on the channel's event loop, so implementations must not block. */
    public interface Sink {
        void announced(Announcement announcement, InetSocketAddress sender);

        void malformed(String reason, InetSocketAddress sender);
    }

    private static final Logger LOG = LoggerFactory.getLogger(AnnouncementHandler.class);

    private final Sink sink;

    public AnnouncementHandler(Sink sink) {
        this.sink = sink;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        Announcement announcement;
        try {
            announcement = Announcement.decode(packet.content().nioBuffer());
        } catch (MalformedAnnouncementException e) {
            sink.malformed(e.getMessage(), packet.sender());
            return;
        }
        sink.announced(announcement, packet.sender());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // A datagram socket has no connection to lose: an error reading one datagram must not stop the next.
        LOG.warn("multicast discovery: reading a datagram on {} failed: {}", ctx.channel().localAddress(), cause.toString());
    }
}
