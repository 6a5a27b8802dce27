package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompFrame;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class PendingSendsTest {

    private static PendingSend send(int bodyBytes, String id) {
        return new PendingSend(Message.builder("/queue/q").body(new byte[bodyBytes]).build(), id);
    }

    @Test
    void shouldKeepSendsInOrderAndFreeRoomWhenOneIsRemoved() throws Exception {
        PendingSends p = new PendingSends(1000);
        PendingSend first = send(300, "c:1");
        PendingSend second = send(300, "c:2");
        assertThat(p.reserve(first, Duration.ZERO)).isTrue();
        p.add(first);
        assertThat(p.reserve(second, Duration.ZERO)).isTrue();
        p.add(second);

        assertThat(p.inOrder()).containsExactly(first, second);
        PendingSend third = send(300, "c:3");
        assertThat(p.reserve(third, Duration.ofMillis(20))).as("no room for a third").isFalse();
        assertThat(p.remove(first)).isTrue();
        assertThat(p.remove(first)).as("only once").isFalse();
        assertThat(p.reserve(third, Duration.ZERO)).isTrue();
        p.add(third);
        assertThat(p.inOrder()).containsExactly(second, third);
        assertThat(p.drain()).containsExactly(second, third);
        assertThat(p.size()).isZero();
        assertThat(p.bytes()).isZero();
    }

    @Test
    void shouldAdmitASendLargerThanTheBufferWhenTheBufferIsEmpty() throws Exception {
        PendingSends p = new PendingSends(100);
        PendingSend big = send(10_000, "c:1");
        assertThat(p.reserve(big, Duration.ZERO)).isTrue();
        p.add(big);
        assertThat(p.reserve(send(1, "c:2"), Duration.ZERO)).isFalse();
        p.remove(big);
        assertThat(p.bytes()).isZero();
    }

    @Test
    void shouldCarryTheFederationIdAndDropHeadersTheClientOwns() {
        Message m = Message.builder("/queue/q").header("receipt", "r-9").header("transaction", "t").header("app", "1")
                .header(FederationHeaders.FEDERATION_ID, "old").body("x").build();
        StompFrame f = PendingSend.sendFrame(m, "c:5", null);
        assertThat(f.headers().toMap()).containsEntry("destination", "/queue/q").containsEntry("app", "1")
                .containsEntry(FederationHeaders.FEDERATION_ID, "c:5").doesNotContainKeys("receipt", "transaction");
        assertThat(PendingSend.sendFrame(m, "c:5", "tx-1").header("transaction")).isEqualTo("tx-1");
    }
}
