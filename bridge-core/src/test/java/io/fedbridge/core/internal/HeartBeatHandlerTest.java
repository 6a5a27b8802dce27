package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.US_ASCII;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Drives the handler's idle timers with EmbeddedChannel's frozen clock: no sleeping. */
class HeartBeatHandlerTest {

    private final List<Object> events = new ArrayList<>();
    private EmbeddedChannel channel;

    @AfterEach
    void releaseEverything() {
        if (channel != null) {
            channel.finishAndReleaseAll();
        }
    }

    private void start(long sendMillis, long receiveMillis) {
        channel = new EmbeddedChannel();
        channel.freezeTime();
        channel.pipeline().addLast(new HeartBeatHandler(new HeartBeats(sendMillis, receiveMillis)),
                new ChannelInboundHandlerAdapter() {
                    @Override
                    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
                        events.add(evt);
                    }
                });
    }

    /** Moves the clock a millisecond at a time, as a real one would, running whatever falls due. */
    private void advance(long millis) {
        for (long i = 0; i < millis; i++) {
            channel.advanceTimeBy(1, TimeUnit.MILLISECONDS);
            channel.runScheduledPendingTasks();
            channel.runPendingTasks();
        }
    }

    /** The outbound messages written so far, as text; each is released. */
    private List<String> written() {
        List<String> out = new ArrayList<>();
        for (Object m = channel.readOutbound(); m != null; m = channel.readOutbound()) {
            out.add(m instanceof ByteBuf b ? b.toString(US_ASCII) : m.toString());
            ReferenceCountUtil.release(m);
        }
        return out;
    }

    private void receiveSomething() {
        channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {'\n'}));
        ReferenceCountUtil.release(channel.readInbound());
    }

    @Test
    void shouldWriteAnEolWhenNothingWasWrittenForTheSendInterval() {
        start(1000, 0);

        advance(999);
        assertThat(written()).isEmpty();

        advance(1);
        assertThat(written()).containsExactly("\n");

        advance(1000);
        assertThat(written()).containsExactly("\n");
        assertThat(events).isEmpty();
    }

    @Test
    void shouldPostponeTheHeartBeatWhileFramesAreWritten() {
        start(1000, 0);

        advance(600);
        channel.writeOutbound(Unpooled.wrappedBuffer("SEND\n\n\0".getBytes(US_ASCII)));
        assertThat(written()).containsExactly("SEND\n\n\0");

        advance(600);
        assertThat(written()).as("only 600 ms since the last write").isEmpty();

        advance(400);
        assertThat(written()).containsExactly("\n");
    }

    @Test
    void shouldNotPostponeTheHeartBeatBecauseOfReads() {
        start(1000, 0);

        advance(500);
        receiveSomething();
        advance(500);

        assertThat(written()).containsExactly("\n");
    }

    @Test
    void shouldFireDeadPeerAfterThreeReceiveIntervalsOfSilence() {
        start(0, 1000);

        advance(2999);
        assertThat(events).isEmpty();

        advance(1);
        assertThat(events).containsExactly(new HeartBeatHandler.DeadPeer(3000));
        assertThat(written()).as("a reader-idle peer gets no heart-beat of ours").isEmpty();
    }

    @Test
    void shouldNotFireDeadPeerWhileThePeerKeepsSending() {
        start(0, 1000);

        for (int i = 0; i < 20; i++) {
            advance(2900); // a peer like ActiveMQ that beats only every second interval stays alive
            receiveSomething();
        }

        assertThat(events).isEmpty();
        advance(3000);
        assertThat(events).containsExactly(new HeartBeatHandler.DeadPeer(3000));
    }

    @Test
    void shouldSendAndWatchIndependently() {
        start(1000, 2000);

        advance(1000);
        assertThat(written()).containsExactly("\n");
        assertThat(events).isEmpty();

        advance(2000);
        assertThat(written()).as("heart-beats at 2000 and 3000 ms").containsExactly("\n", "\n");
        assertThat(events).isEmpty();

        advance(3000);
        assertThat(written()).as("heart-beats at 4000, 5000 and 6000 ms").containsExactly("\n", "\n", "\n");
        assertThat(events).containsExactly(new HeartBeatHandler.DeadPeer(6000));
    }

    @Test
    void shouldNotPassRawIdleStateEventsOn() {
        start(100, 100);

        advance(1000);
        written();

        assertThat(events).isNotEmpty().allMatch(HeartBeatHandler.DeadPeer.class::isInstance);
    }

    @Test
    void shouldDoNothingWhenHeartBeatingIsOff() {
        start(0, 0);

        channel.advanceTimeBy(1, TimeUnit.HOURS);
        channel.runScheduledPendingTasks();

        assertThat(written()).isEmpty();
        assertThat(events).isEmpty();
    }

    @Test
    void shouldWriteAFreshEolEachTime() {
        start(10, 0);

        List<String> all = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            advance(10);
            all.addAll(written());
        }

        assertThat(all).containsExactly("\n", "\n", "\n", "\n", "\n");
    }
}
