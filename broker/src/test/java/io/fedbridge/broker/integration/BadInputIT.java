package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.FrameLimits;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad input gets one ERROR frame that names the problem, closes only the offending
 * connection, and leaves the broker and every other connection working.
 */
class BadInputIT extends BrokerTestSupport {

    private Broker broker;
    private StompConnection bystander;
    private Subscription bystanderSub;

    @BeforeEach
    void startBrokerWithABystander() {
        broker = startBroker(BrokerConfig.builder("bad-input").limits(new FrameLimits(4096, 20, 256)));
        bystander = connect(broker, "tcp");
        bystanderSub = bystander.subscribeAndWait(SubscriptionRequest.of("/queue/bystander"), null, Duration.ofSeconds(5));
    }

    static Stream<Arguments> badFrames() {
        String big = "x".repeat(5000);
        String manyHeaders = "h:v\n".repeat(25);
        return Stream.of(
                Arguments.of("malformed header line", "SEND\ndestination:/queue/a\nno-colon-here\n\nbody\0", "without ':'"),
                Arguments.of("unknown command", "FROB\n\n\0", "unknown command 'FROB'"),
                Arguments.of("oversize frame", "SEND\ndestination:/queue/a\n\n" + big + "\0", "size limit of 4096"),
                Arguments.of("oversize frame by content-length", "SEND\ndestination:/queue/a\ncontent-length:99999\n\n", "size limit of 4096"),
                Arguments.of("oversize header", "SEND\ndestination:/queue/a\nx:" + "y".repeat(300) + "\n\n\0", "longer than the limit of 256"),
                Arguments.of("too many headers", "SEND\ndestination:/queue/a\n" + manyHeaders + "\n\0", "more than the limit of 20 headers"),
                Arguments.of("invalid escape", "SEND\ndestination:/queue/a\nbad:\\t\n\n\0", "invalid escape"),
                Arguments.of("invalid content-length", "SEND\ndestination:/queue/a\ncontent-length:abc\n\n\0", "invalid content-length 'abc'"),
                Arguments.of("send without destination", "SEND\nreceipt:r1\n\nhello\0", "missing destination"),
                Arguments.of("unknown destination type", "SEND\ndestination:orders\n\nhello\0", "unknown destination type in 'orders'"),
                Arguments.of("ack of unknown id", "ACK\nid:77:12\n\n\0", "ACK of unknown id '77:12'"),
                Arguments.of("nack of unknown id", "NACK\nid:nope\n\n\0", "NACK of unknown id 'nope'"),
                Arguments.of("invalid selector", "SUBSCRIBE\nid:1\ndestination:/queue/a\nselector:price >\n\n\0", "invalid selector"),
                Arguments.of("invalid ack mode", "SUBSCRIBE\nid:1\ndestination:/queue/a\nack:sometimes\n\n\0", "ack must be one of"),
                Arguments.of("subscribe without id", "SUBSCRIBE\ndestination:/queue/a\n\n\0", "no id header"),
                Arguments.of("unsubscribe unknown id", "UNSUBSCRIBE\nid:ghost\n\n\0", "unknown subscription id 'ghost'"),
                Arguments.of("commit unknown transaction", "COMMIT\ntransaction:t9\n\n\0", "COMMIT of unknown transaction 't9'"),
                Arguments.of("send in unknown transaction", "SEND\ndestination:/queue/a\ntransaction:t8\n\n\0", "unknown transaction 't8'"),
                Arguments.of("server frame from client", "MESSAGE\ndestination:/queue/a\n\n\0", "must not send MESSAGE"),
                Arguments.of("second connect", "CONNECT\naccept-version:1.2\n\n\0", "already connected"),
                Arguments.of("wildcard on queue", "SUBSCRIBE\nid:1\ndestination:/queue/a.*\n\n\0", "wildcards are supported on topics only"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("badFrames")
    void shouldAnswerWithAnErrorNamingTheProblemAndCloseOnlyThatConnection(String what, String frame, String expected)
            throws Exception {
        RawStomp bad = raw(broker);
        bad.handshake();
        bad.write(frame);
        RawStomp.Frame error = bad.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).contains(expected);
        assertThat(bad.isClosedByPeer()).isTrue();
        assertBrokerAndBystanderStillWork();
    }

    @org.junit.jupiter.api.Test
    void shouldRejectAFrameBeforeConnect() throws Exception {
        RawStomp bad = raw(broker);
        bad.write("SEND\ndestination:/queue/a\n\nhi\0");
        RawStomp.Frame error = bad.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(error.header("message")).contains("expected CONNECT or STOMP as the first frame, but got SEND");
        assertThat(bad.isClosedByPeer()).isTrue();
        assertBrokerAndBystanderStillWork();
    }

    @org.junit.jupiter.api.Test
    void shouldCarryTheReceiptIdOfTheRejectedFrame() throws Exception {
        RawStomp bad = raw(broker);
        bad.handshake();
        bad.write("SEND\nreceipt:77\n\nno destination\0");
        RawStomp.Frame error = bad.read();
        assertThat(error.header("receipt-id")).isEqualTo("77");
    }

    @org.junit.jupiter.api.Test
    void shouldSurviveGarbageBytes() throws Exception {
        RawStomp bad = raw(broker);
        byte[] garbage = new byte[2000];
        new java.util.Random(42).nextBytes(garbage);
        garbage[0] = 'Z';
        bad.write(garbage);
        RawStomp.Frame error = bad.read();
        assertThat(error.command()).isEqualTo("ERROR");
        assertThat(bad.isClosedByPeer()).isTrue();
        assertBrokerAndBystanderStillWork();
    }

    private void assertBrokerAndBystanderStillWork() throws Exception {
        assertThat(bystander.isConnected()).isTrue();
        bystander.send(Message.of("/queue/bystander", "still here")).get();
        assertThat(bystanderSub.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("still here");
        try (StompConnection fresh = StompConnection.connect(broker.connectUris().get(0))) {
            assertThat(fresh.isConnected()).isTrue();
        }
    }
}
