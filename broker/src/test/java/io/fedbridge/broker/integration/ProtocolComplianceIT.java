package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.FederationHeaders;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** STOMP 1.2 compliance checked with raw bytes over a socket, not with fedbridge's own codec. */
class ProtocolComplianceIT extends BrokerTestSupport {

    @Test
    void shouldNegotiateTheHighestCommonVersionAndAnnounceTheBrokerIdentity() throws Exception {
        Broker b = startBroker();
        RawStomp c = raw(b);
        c.write("CONNECT\naccept-version:1.0,1.1,1.2\nhost:x\n\n\0");
        RawStomp.Frame f = c.read();
        assertThat(f.command()).isEqualTo("CONNECTED");
        assertThat(f.header("version")).isEqualTo("1.2");
        assertThat(f.header("server")).startsWith("fedbridge/");
        assertThat(f.header("session")).isNotBlank();
        assertThat(f.header(FederationHeaders.BROKER_ID)).isEqualTo(b.id());
        assertThat(f.header(FederationHeaders.BROKER_NAME)).isEqualTo(b.name());

        RawStomp old = raw(b);
        old.write("STOMP\naccept-version:1.1\nhost:x\n\n\0");
        assertThat(old.read().header("version")).isEqualTo("1.1");

        RawStomp ancient = raw(b);
        ancient.write("CONNECT\n\n\0");
        assertThat(ancient.read().header("version")).isEqualTo("1.0");
    }

    @Test
    void shouldRejectUnsupportedVersionsListingTheSupportedOnes() throws Exception {
        Broker b = startBroker();
        RawStomp c = raw(b);
        c.write("CONNECT\naccept-version:2.0,3.1\nhost:x\n\n\0");
        RawStomp.Frame f = c.read();
        assertThat(f.command()).isEqualTo("ERROR");
        assertThat(f.header("version")).isEqualTo("1.0,1.1,1.2");
        assertThat(f.header("message")).contains("2.0,3.1");
        assertThat(c.isClosedByPeer()).isTrue();
    }

    @Test
    void shouldNegotiateHeartBeatsAndSendThem() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("hb-send").heartBeat(Duration.ofMillis(100)));
        RawStomp c = raw(b);
        c.write("CONNECT\naccept-version:1.2\nhost:x\nheart-beat:0,100\n\n\0");
        RawStomp.Frame f = c.read();
        assertThat(f.header("heart-beat")).isEqualTo("100,100");
        // The client promised nothing, asked for beats every 100 ms: it must receive bare EOLs.
        InputStream in = rawInput(c);
        int eols = 0;
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (eols < 3 && System.nanoTime() < deadline) {
            int ch = in.read();
            assertThat(ch).isIn((int) '\n', (int) '\r');
            if (ch == '\n') {
                eols++;
            }
        }
        assertThat(eols).isEqualTo(3);
    }

    @Test
    void shouldCloseADeadPeerThatStopsSendingHeartBeats() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("hb-dead").heartBeat(Duration.ofMillis(100)));
        RawStomp c = raw(b);
        // We promise to send every 100 ms, then stay silent.
        c.write("CONNECT\naccept-version:1.2\nhost:x\nheart-beat:100,0\n\n\0");
        assertThat(c.read().command()).isEqualTo("CONNECTED");
        assertThat(c.isClosedByPeer()).as("broker closes a silent client after ~150 ms").isTrue();
    }

    @Test
    void shouldKeepALiveClientThatSendsHeartBeats() throws Exception {
        Broker b = startBroker(BrokerConfig.builder("hb-alive").heartBeat(Duration.ofMillis(100)));
        RawStomp c = raw(b);
        c.write("CONNECT\naccept-version:1.2\nhost:x\nheart-beat:100,0\n\n\0");
        assertThat(c.read().command()).isEqualTo("CONNECTED");
        long end = System.nanoTime() + Duration.ofMillis(600).toNanos();
        while (System.nanoTime() < end) {
            c.write("\n");
            java.util.concurrent.locks.LockSupport.parkNanos(Duration.ofMillis(40).toNanos());
        }
        c.write("SUBSCRIBE\nid:0\ndestination:/queue/alive\nreceipt:r1\n\n\0");
        assertThat(c.read().header("receipt-id")).isEqualTo("r1");
    }

    @Test
    void shouldRoundTripEscapedHeadersAndBinaryBodiesWithNulBytes() throws Exception {
        Broker b = startBroker();
        RawStomp consumer = raw(b);
        consumer.handshake();
        consumer.write("SUBSCRIBE\nid:s1\ndestination:/queue/bin\nreceipt:r\n\n\0");
        assertThat(consumer.read().command()).isEqualTo("RECEIPT");

        RawStomp producer = raw(b);
        producer.handshake();
        byte[] body = {1, 0, 2, 0, 0, 3, (byte) 0xff};
        ByteArrayOutputStream frame = new ByteArrayOutputStream();
        frame.writeBytes(("SEND\ndestination:/queue/bin\nweird\\cname:a\\nb\\\\c\\rd\ncontent-length:" + body.length
                + "\nreceipt:r2\n\n").getBytes(StandardCharsets.UTF_8));
        frame.writeBytes(body);
        frame.write(0);
        producer.write(frame.toByteArray());
        assertThat(producer.read().header("receipt-id")).isEqualTo("r2");

        RawStomp.Frame m = consumer.read();
        assertThat(m.command()).isEqualTo("MESSAGE");
        assertThat(m.body()).containsExactly(body);
        assertThat(m.header("weird:name")).isEqualTo("a\nb\\c\rd");
        assertThat(m.header("subscription")).isEqualTo("s1");
        assertThat(m.header("message-id")).isNotBlank();
        assertThat(m.header("destination")).isEqualTo("/queue/bin");
    }

    @Test
    void shouldAcceptCrLfLineEndsAndBodiesWithoutContentLength() throws Exception {
        Broker b = startBroker();
        RawStomp c = raw(b);
        c.write("CONNECT\r\naccept-version:1.2\r\nhost:x\r\n\r\n\0");
        assertThat(c.read().command()).isEqualTo("CONNECTED");
        c.write("SUBSCRIBE\r\nid:1\r\ndestination:/topic/crlf\r\nreceipt:a\r\n\r\n\0");
        assertThat(c.read().command()).isEqualTo("RECEIPT");
        c.write("SEND\r\ndestination:/topic/crlf\r\n\r\nplain text\0");
        RawStomp.Frame m = c.read();
        assertThat(m.bodyText()).isEqualTo("plain text");
    }

    @Test
    void shouldAnswerDisconnectWithItsReceiptAndThenClose() throws Exception {
        Broker b = startBroker();
        RawStomp c = raw(b);
        c.handshake();
        c.write("DISCONNECT\nreceipt:bye-77\n\n\0");
        RawStomp.Frame f = c.read();
        assertThat(f.command()).isEqualTo("RECEIPT");
        assertThat(f.header("receipt-id")).isEqualTo("bye-77");
        assertThat(c.isClosedByPeer()).isTrue();
    }

    @Test
    void shouldAckByTheAckHeaderAndNotRedeliverAckedMessages() throws Exception {
        Broker b = startBroker();
        RawStomp c = raw(b);
        c.handshake();
        c.write("SUBSCRIBE\nid:s\ndestination:/queue/acks\nack:client-individual\n\n\0");
        c.write("SEND\ndestination:/queue/acks\n\none\0SEND\ndestination:/queue/acks\n\ntwo\0");
        RawStomp.Frame one = c.read();
        RawStomp.Frame two = c.read();
        assertThat(one.bodyText()).isEqualTo("one");
        assertThat(two.bodyText()).isEqualTo("two");
        c.write("ACK\nid:" + one.header("ack") + "\nreceipt:k\n\n\0");
        assertThat(c.read().header("receipt-id")).isEqualTo("k");
        c.write("NACK\nid:" + two.header("ack") + "\n\n\0");
        RawStomp.Frame again = c.read();
        assertThat(again.bodyText()).isEqualTo("two");
        assertThat(again.header("redelivery-count")).isEqualTo("1");
        assertThat(again.header("redelivered")).isEqualTo("true");
    }

    private static InputStream rawInput(RawStomp c) throws IOException {
        return new InputStream() {
            @Override
            public int read() throws IOException {
                return c.readByte();
            }
        };
    }
}
