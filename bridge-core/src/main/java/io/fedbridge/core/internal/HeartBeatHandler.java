package io.fedbridge.core.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * Sends an EOL when nothing was written for the negotiated send interval and fires {@link DeadPeer} when
 * nothing was read for 3x the negotiated receive interval. STOMP 1.2 asks for some grace; 3x is what real
 * peers need: ActiveMQ, idle, sends its heart-beat only about every second interval. Added to a pipeline once CONNECT/CONNECTED has negotiated the intervals, in front of the
 * decoder: heart-beat EOLs decode to nothing, yet must count as reads.
 */
public final class HeartBeatHandler extends IdleStateHandler {

    /** User event fired when the peer stopped sending heart-beats. */
    public record DeadPeer(long silentMillis) {
    }

    private static final ByteBuf EOL = Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte('\n').asReadOnly());

    /** Silence longer than this many receive intervals means the peer is dead. */
    public static final int GRACE = 3;

    private final HeartBeats beats;

    public HeartBeatHandler(HeartBeats beats) {
        super(beats.receiveMillis() == 0 ? 0 : beats.receiveMillis() * GRACE, beats.sendMillis(), 0, TimeUnit.MILLISECONDS);
        this.beats = beats;
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent evt) {
        if (evt.state() == IdleState.WRITER_IDLE) {
            ctx.writeAndFlush(EOL.duplicate());
        } else if (evt.state() == IdleState.READER_IDLE) {
            ctx.fireUserEventTriggered(new DeadPeer(beats.receiveMillis() * GRACE));
        }
    }
}
