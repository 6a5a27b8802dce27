package io.fedbridge.broker.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * minFreeDisk: when the disk of the data directory runs low, persistent SENDs wait (their producer is not read) until
 * space returns, then go on by themselves; everything else carries on. The disk is faked through DiskSpace.
 */
class DiskSpaceLimitIT extends BrokerTestSupport {

    private static final long GIB = 1L << 30;

    @TempDir
    Path data;

    @Test
    void shouldHoldPersistentSendsWhileTheDiskIsBelowMinFreeDiskAndResumeWhenSpaceReturns() throws Exception {
        AtomicLong free = new AtomicLong(10 * GIB);
        Broker b = startBroker(BrokerConfig.builder("disk").dataDirectory(data)
                .resourceLimits(l -> l.minFreeDisk(GIB).diskSpace(dir -> free.get())));
        StompConnection producer = connect(b, "tcp");
        StompConnection other = connect(b, "tcp");
        Subscription orders = other.subscribeAndWait(SubscriptionRequest.of("/queue/orders"), null, Duration.ofSeconds(5));
        Subscription chat = other.subscribeAndWait(SubscriptionRequest.of("/queue/chat"), null, Duration.ofSeconds(5));
        producer.send(Message.builder("/queue/orders").body("before").persistent(true).build()).get(5, TimeUnit.SECONDS);
        assertThat(orders.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("before");

        free.set(GIB / 2);
        await("the broker notices the disk is low").atMost(Duration.ofSeconds(5)).until(b::isDiskSpaceLow);
        CompletableFuture<Void> held = producer.send(Message.builder("/queue/orders").body("held").persistent(true).build());

        await("the persistent send waits").during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                .until(() -> !held.isDone());
        assertThat(orders.poll()).isNull();
        other.send(Message.of("/queue/chat", "non-persistent traffic goes on")).get(5, TimeUnit.SECONDS);
        assertThat(chat.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("non-persistent traffic goes on");

        free.set(2 * GIB);
        held.get(5, TimeUnit.SECONDS);
        assertThat(orders.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("held");
        assertThat(b.isDiskSpaceLow()).isFalse();
        producer.send(Message.builder("/queue/orders").body("after").persistent(true).build()).get(5, TimeUnit.SECONDS);
        assertThat(orders.receive(Duration.ofSeconds(5)).bodyAsString()).isEqualTo("after");
    }

    @Test
    void shouldKeepItsLastVerdictWhenTheFreeSpaceCannotBeRead() throws Exception {
        AtomicLong free = new AtomicLong(10 * GIB);
        Broker b = startBroker(BrokerConfig.builder("disk-unknown").dataDirectory(data)
                .resourceLimits(l -> l.minFreeDisk(GIB).diskSpace(dir -> {
                    long f = free.get();
                    if (f < 0) {
                        throw new IOException("statfs failed");
                    }
                    return f;
                })));
        free.set(-1);
        StompConnection c = connect(b, "tcp");
        await("sends go on while the probe fails").during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(5))
                .until(() -> !b.isDiskSpaceLow());
        c.send(Message.builder("/queue/q").body("x").persistent(true).build()).get(5, TimeUnit.SECONDS);
    }
}
