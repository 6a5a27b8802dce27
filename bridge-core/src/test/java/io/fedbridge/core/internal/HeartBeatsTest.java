package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

class HeartBeatsTest {

    /*
     * STOMP 1.2, "Heart-beating": the client offers cx,cy and the server sx,sy. The client sends every
     * max(cx,sy) ms unless cx or sy is 0, and expects the server's every max(cy,sx) ms unless cy or sx is 0.
     */
    @ParameterizedTest(name = "mine {0},{1} + peer {2},{3} -> send {4}, receive {5}")
    @CsvSource({
        // mySend, myReceive, peerSend, peerReceive, send, receive
        "0,     0,     0,     0,     0,     0",
        "1000,  1000,  0,     0,     0,     0",
        "0,     0,     1000,  1000,  0,     0",
        "1000,  0,     1000,  1000,  1000,  0",
        "0,     1000,  1000,  1000,  0,     1000",
        "1000,  1000,  1000,  0,     0,     1000",
        "1000,  1000,  0,     1000,  1000,  0",
        "1000,  2000,  3000,  4000,  4000,  3000",
        "5000,  5000,  1000,  1000,  5000,  5000",
        "100,   10000, 500,   250,   250,   10000",
        "1,     1,     1,     1,     1,     1",
    })
    void shouldNegotiateAsStomp12Specifies(long mySend, long myReceive, long peerSend, long peerReceive,
                                           long send, long receive) {
        assertThat(HeartBeats.negotiate(mySend, myReceive, peerSend, peerReceive)).isEqualTo(new HeartBeats(send, receive));
    }

    @Test
    void shouldNegotiateSymmetrically() {
        long[] values = {0, 1, 500, 10_000, 60_000};
        for (long cx : values) {
            for (long cy : values) {
                for (long sx : values) {
                    for (long sy : values) {
                        HeartBeats client = HeartBeats.negotiate(cx, cy, sx, sy);
                        HeartBeats server = HeartBeats.negotiate(sx, sy, cx, cy);
                        assertThat(client.sendMillis()).as("%d,%d vs %d,%d", cx, cy, sx, sy).isEqualTo(server.receiveMillis());
                        assertThat(client.receiveMillis()).as("%d,%d vs %d,%d", cx, cy, sx, sy).isEqualTo(server.sendMillis());
                    }
                }
            }
        }
    }

    @Test
    void shouldHaveNoneAsZeroZero() {
        assertThat(HeartBeats.NONE).isEqualTo(new HeartBeats(0, 0));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0,0           | 0     | 0",
        "10000,20000   | 10000 | 20000",
        " 10 , 20      | 10    | 20",
        "0,5000        | 0     | 5000",
    })
    void shouldParseTheHeader(String header, long first, long second) {
        assertThat(HeartBeats.parse(header)).containsExactly(first, second);
    }

    @ParameterizedTest
    @NullSource
    @ValueSource(strings = {"", "  "})
    void shouldTreatAMissingHeaderAsNoHeartBeats(String header) {
        assertThat(HeartBeats.parse(header)).containsExactly(0, 0);
    }

    @ParameterizedTest
    @ValueSource(strings = {"10", "10,20,30", "10;20", "10,"})
    void shouldRejectAHeaderWithoutTwoValuesNamingIt(String header) {
        assertThatThrownBy(() -> HeartBeats.parse(header))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heart-beat")
                .hasMessageContaining("'" + header + "'")
                .hasMessageContaining("cx,cy");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a,b", "-1,0", "0,-5", ",10", "1.5,2", "99999999999999999999,0"})
    void shouldRejectValuesThatAreNotNonNegativeIntegersNamingTheHeader(String header) {
        assertThatThrownBy(() -> HeartBeats.parse(header))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("heart-beat")
                .hasMessageContaining("'" + header + "'")
                .hasMessageContaining("non-negative");
    }
}
