package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.StoredMessage;
import io.fedbridge.broker.store.StoreException;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.Test;

/** A send the store cannot keep (a full disk) is answered with an ERROR naming why, never a receipt. */
class StoreFailureIT extends BrokerTestSupport {

    /** A store whose disk is full: every add fails, as JournalMessageStore does after an IOException. */
    private static final class FullDiskStore extends StubMessageStore {
        @Override
        public CompletableFuture<Void> add(String key, StoredMessage message) {
            return CompletableFuture.failedFuture(new StoreException("journal-0000000001.log: No space left on device"));
        }
    }

    @Test
    void shouldAnswerAnUnstorableSendWithAnErrorAndNoReceipt() throws Exception {
        Broker b = Broker.start(BrokerConfig.builder("full-disk").listen("tcp://127.0.0.1:0").build(), new FullDiskStore());
        resources.add(b);
        StompConnection c = connect(b, "tcp");
        CompletableFuture<Void> send = c.send(Message.builder("/queue/q").body("x").persistent(true).build());
        try {
            send.get();
            throw new AssertionError("a message that was not stored must not be receipted");
        } catch (ExecutionException e) {
            assertThat(e.getCause()).isInstanceOf(StompErrorException.class)
                    .hasMessageContaining("could not be stored").hasMessageContaining("No space left on device");
        }
        assertThat(b.queue("/queue/q").pending()).isZero();
        // Non-persistent traffic and other connections carry on.
        try (StompConnection other = StompConnection.connect(b.connectUris().get(0))) {
            other.send(Message.of("/queue/q", "volatile")).get();
        }
        assertThat(b.queue("/queue/q").pending()).isEqualTo(1);
        assertThat(b.memoryUsed()).isPositive();
    }
}
