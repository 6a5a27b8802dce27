package io.fedbridge.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.StompCommand;
import io.fedbridge.core.StompFrame;
import io.fedbridge.core.StompHeaders;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CoalescingFrameEncoderTest {

    private final EmbeddedChannel channel = new EmbeddedChannel(new CoalescingFrameEncoder());

    @AfterEach
    void releaseEverything() {
        channel.finishAndReleaseAll();
    }

    private static StompFrame message(int i, int bodySize) {
        StompHeaders h = new StompHeaders();
        h.add(StompHeaders.DESTINATION, "/queue/q");
        h.add(StompHeaders.MESSAGE_ID, "m-" + i);
        h.add("colon:and\nnewline", "v\\" + i);
        byte[] body = new byte[bodySize];
        java.util.Arrays.fill(body, (byte) ('a' + i % 26));
        return new StompFrame(StompCommand.MESSAGE, h, body);
    }

    private static byte[] alone(StompFrame f) {
        ByteBuf b = Unpooled.buffer();
        try {
            StompFrameEncoder.encode(f, b);
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** Everything written to the socket so far, in order, and how many buffers it came in. */
    private List<byte[]> outbound() {
        List<byte[]> out = new ArrayList<>();
        for (Object o; (o = channel.readOutbound()) != null; ) {
            ByteBuf b = (ByteBuf) o;
            out.add(ByteBufUtil.getBytes(b));
            b.release();
        }
        return out;
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        parts.forEach(all::writeBytes);
        return all.toByteArray();
    }

    @Test
    void shouldWriteABurstOfFramesAsFewBuffersWithTheSameBytesAsOneByOne() {
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        for (int i = 0; i < 40; i++) {
            StompFrame f = message(i, 1024);
            expected.writeBytes(alone(f));
            channel.write(f, channel.voidPromise());
        }
        assertThat(outbound()).as("nothing before the flush but full chunks").allSatisfy(b -> assertThat(b.length)
                .isGreaterThan(CoalescingFrameEncoder.CHUNK - 2048).isLessThanOrEqualTo(CoalescingFrameEncoder.CHUNK));
        channel.flush();
        // (the chunks passed on before the flush were read above: write them again for the comparison)
        EmbeddedChannel again = new EmbeddedChannel(new CoalescingFrameEncoder());
        for (int i = 0; i < 40; i++) {
            again.write(message(i, 1024), again.voidPromise());
        }
        again.flush();
        List<byte[]> parts = new ArrayList<>();
        for (Object o; (o = again.readOutbound()) != null; ) {
            parts.add(ByteBufUtil.getBytes((ByteBuf) o));
            ((ByteBuf) o).release();
        }
        again.finishAndReleaseAll();

        assertThat(concat(parts)).isEqualTo(expected.toByteArray());
        int frameSize = alone(message(0, 1024)).length;
        int perChunk = CoalescingFrameEncoder.CHUNK / frameSize;
        assertThat(parts).as("40 frames of %d bytes, %d to a chunk", frameSize, perChunk).hasSize((40 + perChunk - 1) / perChunk);
    }

    @Test
    void shouldDecodeBackToTheFramesWritten() {
        for (int i = 0; i < 25; i++) {
            channel.write(message(i, i * 97), channel.voidPromise());
        }
        channel.flush();
        EmbeddedChannel decoder = new EmbeddedChannel(new StompFrameDecoder(FrameLimits.ofDefaults()));
        try {
            decoder.writeInbound(Unpooled.wrappedBuffer(concat(outbound())));
            for (int i = 0; i < 25; i++) {
                StompFrame f = decoder.readInbound();
                assertThat(f.header(StompHeaders.MESSAGE_ID)).isEqualTo("m-" + i);
                assertThat(f.header("colon:and\nnewline")).isEqualTo("v\\" + i);
                assertThat(f.body()).isEqualTo(message(i, i * 97).body());
            }
            assertThat((Object) decoder.readInbound()).isNull();
        } finally {
            decoder.finishAndReleaseAll();
        }
    }

    @Test
    void shouldKeepTheOrderOfWritesWithPromisesBuffersAndLargeFrames() {
        StompFrame small1 = message(1, 10);
        StompFrame withPromise = message(2, 20);
        ByteBuf preEncoded = Unpooled.copiedBuffer("RECEIPT\nreceipt-id:7\n\n\0", UTF_8);
        StompFrame small2 = message(3, 30);
        StompFrame large = message(4, CoalescingFrameEncoder.CHUNK * 2);
        StompFrame small3 = message(5, 50);

        channel.write(small1, channel.voidPromise());
        ChannelFuture promised = channel.write(withPromise);
        channel.write(preEncoded, channel.voidPromise());
        channel.write(small2, channel.voidPromise());
        channel.write(large, channel.voidPromise());
        channel.write(small3, channel.voidPromise());
        channel.flush();

        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        expected.writeBytes(alone(small1));
        expected.writeBytes(alone(withPromise));
        expected.writeBytes("RECEIPT\nreceipt-id:7\n\n\0".getBytes(UTF_8));
        expected.writeBytes(alone(small2));
        expected.writeBytes(alone(large));
        expected.writeBytes(alone(small3));
        assertThat(concat(outbound())).isEqualTo(expected.toByteArray());
        assertThat(promised.isSuccess()).as("the promise of the frame written on its own").isTrue();
    }

    @Test
    void shouldReleaseWhatWasNeverFlushedWhenTheChannelCloses() {
        channel.write(message(1, 100), channel.voidPromise());
        channel.close();
        assertThat(outbound()).isEmpty();
        // paranoid leak detection (the build's default) reports the chunk if it was not released
    }
}
