package io.fedbridge.ha.internal;

import io.fedbridge.broker.store.internal.JournalRecord;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One backup's replication link on the primary, in place of a client session in the channel's pipeline. Live
 * records queue here from any thread ({@link ReplicationHub#publish}); the link writes them on its I/O thread, as
 * many as the socket takes, with one flush. While the backup catches up, the primary's state streams in between,
 * paced by the backup's acknowledgements, so that a backlog of millions neither fills the primary's memory nor holds
 * its producers back.
 */
final class ReplicationLink extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(ReplicationLink.class);
    /** Catch-up records in flight (sent, not acknowledged): enough to keep a LAN busy, little enough to bound memory. */
    static final int CATCHUP_WINDOW = 20_000;
    /** A backup whose unsent live records exceed this is too slow to keep: it is dropped and joins again. */
    static final long MAX_QUEUED_BYTES = 512L * 1024 * 1024;

    private record Out(long index, byte[] body, String op) {
    }

    private final ReplicationHub hub;
    private final String member;
    private final String destination;
    private final java.util.function.Supplier<ReplicatingStore.Snapshot> state;
    private Iterator<JournalRecord> catchup;
    private final ConcurrentLinkedQueue<Out> queue = new ConcurrentLinkedQueue<>();
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final AtomicLong queuedBytes = new AtomicLong();
    private volatile Channel channel;
    private volatile boolean subscribed;
    private volatile boolean ready;
    /** Ready, and it holds every record a receipt completed before it counted: see {@link #onAck}. */
    private volatile boolean electable;
    /** The last record numbered when this link started to count: one a receipt may have completed without it. */
    private volatile long countedFrom = Long.MAX_VALUE;
    private volatile boolean closed;
    private volatile long ackedIndex;
    private volatile long ackedCount;
    private long sentCount;
    private volatile long catchupSent;
    private volatile long catchupTotal = -1;
    private long caughtUpIndex = Long.MAX_VALUE;
    private boolean markerQueued;
    private String subscriptionId = "ha";

    ReplicationLink(ReplicationHub hub, String member, String group, java.util.function.Supplier<ReplicatingStore.Snapshot> state) {
        this.hub = hub;
        this.member = member;
        this.destination = Replication.DESTINATION_PREFIX + group;
        this.state = state;
    }

    String member() {
        return member;
    }

    /** Counted: every receipt numbered from now on waits for this backup's acknowledgement. */
    boolean isReady() {
        return ready;
    }

    /** A complete copy: counted, and it acknowledged every record a receipt may have completed without it. */
    boolean isElectable() {
        return electable;
    }

    long ackedIndex() {
        return ackedIndex;
    }

    long queuedBytes() {
        return queuedBytes.get();
    }

    long catchupPending() {
        return catchupTotal < 0 || ready ? 0 : Math.max(0, catchupTotal - catchupSent);
    }

    String address() {
        Channel ch = channel;
        return ch == null ? null : String.valueOf(ch.remoteAddress());
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    /** Called under the hub's lock: keeps the order of numbers. */
    void enqueue(long index, byte[] body) {
        if (closed) {
            return;
        }
        queue.add(new Out(index, body, null));
        if (queuedBytes.addAndGet(body.length) > MAX_QUEUED_BYTES) {
            Channel ch = channel;
            if (ch != null) {
                ch.eventLoop().execute(() -> drop("its backlog of unsent records passed " + MAX_QUEUED_BYTES + " bytes"));
            }
            return;
        }
        scheduleDrain();
    }

    void enqueueMarker(long index) {
        queue.add(new Out(index, null, Replication.OP_CAUGHT_UP));
        scheduleDrain();
    }

    void enqueueReady(long index) {
        queue.add(new Out(index, null, Replication.OP_READY));
        scheduleDrain();
    }

    private void scheduleDrain() {
        Channel ch = channel;
        if (ch != null && subscribed && drainScheduled.compareAndSet(false, true)) {
            ch.eventLoop().execute(this::drain);
        }
    }

    /** Writes what the socket takes: live records first (they hold receipts up), then catch-up. I/O thread only. */
    private void drain() {
        drainScheduled.set(false);
        Channel ch = channel;
        if (closed || ch == null || !ch.isActive()) {
            return;
        }
        boolean wrote = false;
        Out o;
        while (ch.isWritable() && (o = queue.poll()) != null) {
            StompHeaders h = headers();
            h.add(Replication.INDEX, Long.toString(o.index()));
            if (o.body() == null) {
                h.add(Replication.OP, o.op());
                if (Replication.OP_CAUGHT_UP.equals(o.op())) {
                    caughtUpIndex = o.index();
                }
                ch.write(new StompFrame(StompCommand.MESSAGE, h));
            } else {
                queuedBytes.addAndGet(-o.body().length);
                ch.write(new StompFrame(StompCommand.MESSAGE, h, o.body()));
            }
            sentCount++;
            wrote = true;
        }
        while (catchup != null && ch.isWritable() && !markerQueued && sentCount - ackedCount < CATCHUP_WINDOW) {
            if (!catchup.hasNext()) {
                markerQueued = true;
                hub.markCaughtUp(this);
                break;
            }
            StompHeaders h = headers();
            h.add(Replication.CATCHUP, "true");
            ch.write(new StompFrame(StompCommand.MESSAGE, h, Replication.encode(catchup.next())));
            sentCount++;
            catchupSent++;
            wrote = true;
        }
        if (wrote) {
            ch.flush();
        }
        if (!queue.isEmpty() && ch.isWritable()) {
            scheduleDrain();
        }
    }

    private StompHeaders headers() {
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.SUBSCRIPTION, subscriptionId);
        h.add(StompHeaders.DESTINATION, destination);
        h.add(StompHeaders.MESSAGE_ID, Long.toString(sentCount));
        h.add(Replication.EPOCH, Long.toString(hub.epoch()));
        return h;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof StompFrame f)) {
            drop("malformed frame from the backup: " + msg);
            return;
        }
        switch (f.command()) {
            case SUBSCRIBE -> {
                if (!destination.equals(f.header(StompHeaders.DESTINATION))) {
                    drop("the backup subscribed to " + f.header(StompHeaders.DESTINATION) + ", not " + destination);
                    return;
                }
                String id = f.header(StompHeaders.ID);
                subscriptionId = id == null ? "ha" : id;
                subscribed = true;
                hub.register(this);
                // The state is read after the link receives every live record: whatever the reading misses, the
                // live records bring (the backup drops a catch-up record of a message it saw removed).
                ReplicatingStore.Snapshot snapshot = state.get();
                catchup = snapshot.records();
                catchupTotal = snapshot.size();
                drainScheduled.set(true);
                drain();
            }
            case ACK -> onAck(f);
            case DISCONNECT -> ctx.close();
            default -> drop("a backup must not send " + f.command() + " on the replication link");
        }
    }

    private void onAck(StompFrame f) {
        long index;
        long count;
        try {
            index = Long.parseLong(f.header(Replication.INDEX));
            count = Long.parseLong(f.header(Replication.COUNT));
        } catch (NumberFormatException e) {
            drop("ACK without numeric " + Replication.INDEX + " and " + Replication.COUNT + ": " + f.headers());
            return;
        }
        if (index > ackedIndex) {
            ackedIndex = index;
        }
        if (count > ackedCount) {
            ackedCount = count;
        }
        if (!ready && ackedIndex >= caughtUpIndex) {
            // From here on every receipt waits for this backup. One numbered before may have completed on the other
            // backups' acknowledgements alone while its record was still on its way here: the backup is a complete
            // copy (and may be promoted) only once it acknowledged the last of them.
            ready = true;
            countedFrom = hub.head();
            hub.settle();
        } else if (ready) {
            hub.settle();
        }
        if (ready && !electable && ackedIndex >= countedFrom) {
            electable = true;
            hub.becameReady(this);
        }
        if (!markerQueued) {
            drain(); // the catch-up window opened
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) throws Exception {
        if (ctx.channel().isWritable()) {
            drain();
        }
        super.channelWritabilityChanged(ctx);
    }

    /** Closes the link: the backup joins again (and catches up from scratch). */
    void drop(String why) {
        if (closed) {
            return;
        }
        Channel ch = channel;
        if (ch != null && !ch.eventLoop().inEventLoop()) {
            ch.eventLoop().execute(() -> drop(why));
            return;
        }
        closed = true;
        queue.clear();
        hub.unregister(this, why);
        ready = false;
        electable = false;
        if (ch != null) {
            StompHeaders h = new StompHeaders();
            h.add(StompHeaders.MESSAGE, "replication link closed: " + why);
            ch.writeAndFlush(new StompFrame(StompCommand.ERROR, h)).addListener(io.netty.channel.ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (!closed) {
            closed = true;
            queue.clear();
            hub.unregister(this, "its connection closed");
            ready = false;
            electable = false;
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("HA replication link to {}: {}", member, cause.toString());
        ctx.close();
    }
}
