package io.fedbridge.core.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * Sends an EOL when nothing was written for the negotiated send interval and fires {@link DeadPeer} when
 * nothing was read for 3x the negotiated receive interval. STOMP 1.2 asks for some grace; 3x is what real
 * peers need: ActiveMQ, idle, sends its heart-beat only about every second interval. Added to a pipeline once
 * CONNECT/CONNECTED has negotiated the intervals, in front of the decoder: heart-beat EOLs decode to nothing,
 * yet must count as reads.
 *
 * <p>Writes are noted when flushed (a burst of frames costs one clock read), not with a listener on every write's
 * promise as Netty's {@code IdleStateHandler} does: that allocated a promise and a listener list per frame on
 * every connection with heart-beats. Time comes from the event loop's ticker, so tests can move it.
 */
public final class HeartBeatHandler extends ChannelDuplexHandler {

    /** User event fired when the peer stopped sending heart-beats. */
    public record DeadPeer(long silentMillis) {
    }

    private static final ByteBuf EOL = Unpooled.unreleasableBuffer(Unpooled.directBuffer(1).writeByte('\n').asReadOnly());

    /** Silence longer than this many receive intervals means the peer is dead. */
    public static final int GRACE = 3;

    private final long sendNanos;
    private final long deadNanos;
    private final long deadMillis;
    private ChannelHandlerContext ctx;
    private long lastWriteNanos;
    private long lastReadNanos;
    private boolean reading;
    private boolean started;
    private boolean stopped;
    private Future<?> sendCheck;
    private Future<?> readCheck;

    public HeartBeatHandler(HeartBeats beats) {
        this.sendNanos = TimeUnit.MILLISECONDS.toNanos(beats.sendMillis());
        this.deadMillis = beats.receiveMillis() * GRACE;
        this.deadNanos = TimeUnit.MILLISECONDS.toNanos(deadMillis);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive() && ctx.channel().isRegistered()) {
            start();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        stop();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        start();
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        stop();
        super.channelInactive(ctx);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        reading = true;
        ctx.fireChannelRead(msg);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (reading) {
            lastReadNanos = now();
            reading = false;
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flush(ChannelHandlerContext ctx) {
        lastWriteNanos = now();
        ctx.flush();
    }

    private long now() {
        return ctx.executor().ticker().nanoTime();
    }

    private void start() {
        if (started || stopped) {
            return;
        }
        started = true;
        long now = now();
        lastWriteNanos = now;
        lastReadNanos = now;
        if (sendNanos > 0) {
            sendCheck = ctx.executor().schedule(this::checkSend, sendNanos, TimeUnit.NANOSECONDS);
        }
        if (deadNanos > 0) {
            readCheck = ctx.executor().schedule(this::checkRead, deadNanos, TimeUnit.NANOSECONDS);
        }
    }

    private void stop() {
        stopped = true;
        if (sendCheck != null) {
            sendCheck.cancel(false);
            sendCheck = null;
        }
        if (readCheck != null) {
            readCheck.cancel(false);
            readCheck = null;
        }
    }

    private void checkSend() {
        if (stopped || !ctx.channel().isOpen()) {
            return;
        }
        long idle = now() - lastWriteNanos;
        long next = sendNanos - idle;
        if (next <= 0) {
            ctx.writeAndFlush(EOL.duplicate());
            lastWriteNanos = now();
            next = sendNanos;
        }
        sendCheck = ctx.executor().schedule(this::checkSend, next, TimeUnit.NANOSECONDS);
    }

    private void checkRead() {
        if (stopped || !ctx.channel().isOpen()) {
            return;
        }
        long idle = reading ? 0 : now() - lastReadNanos;
        long next = deadNanos - idle;
        if (next <= 0) {
            readCheck = ctx.executor().schedule(this::checkRead, deadNanos, TimeUnit.NANOSECONDS);
            ctx.fireUserEventTriggered(new DeadPeer(deadMillis));
            return;
        }
        readCheck = ctx.executor().schedule(this::checkRead, next, TimeUnit.NANOSECONDS);
    }
}
