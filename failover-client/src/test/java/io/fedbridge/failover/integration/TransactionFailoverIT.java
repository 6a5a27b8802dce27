package io.fedbridge.failover.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.Broker;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverException;
import io.fedbridge.failover.FailoverMessage;
import io.fedbridge.failover.FailoverSubscription;
import io.fedbridge.failover.FailoverTransaction;
import io.fedbridge.failover.TransactionInDoubtException;
import io.fedbridge.failover.TransactionRolledBackException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A transaction never moves to another broker: open at a failover it is rolled back, committing it is in doubt. */
class TransactionFailoverIT extends FailoverTestSupport {

    private static final Duration NOTHING_MORE = Duration.ofMillis(200);

    @Test
    void shouldRollBackATransactionOpenAtAFailoverSoThatNothingOfItIsCommitted() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        FailoverClient client = connect(ordered(uri(a), uri(b)).build());
        FailoverTransaction tx = client.begin();
        tx.send(persistent("/queue/tx", "t1"));
        tx.send(persistent("/queue/tx", "t2"));

        a.close();
        await("client moved to B").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));

        assertThat(tx.isOpen()).isFalse();
        assertThatThrownBy(() -> tx.send(persistent("/queue/tx", "t3"))).isInstanceOf(TransactionRolledBackException.class)
                .hasMessageContaining(tx.id()).hasMessageContaining("rolled back").hasMessageContaining(uri(a))
                .hasMessageContaining("none of its 2 sends");
        assertThatThrownBy(tx::commit).isInstanceOf(TransactionRolledBackException.class)
                .satisfies(e -> assertThat(((TransactionRolledBackException) e).transactionId()).isEqualTo(tx.id()));
        Broker again = restart(a);
        assertThat(again.queue("/queue/tx")).as("nothing of it on A").satisfiesAnyOf(
                q -> assertThat(q).isNull(), q -> assertThat(q.pending()).isZero());
        assertThat(b.queue("/queue/tx")).as("nothing of it on B").isNull();

        FailoverTransaction next = client.begin();
        next.send(persistent("/queue/tx", "after"));
        next.commit();
        assertThat(b.queue("/queue/tx").pending()).isEqualTo(1);
    }

    @Test
    void shouldReportACommitWhoseReceiptNeverCameAsInDoubtWithItsFederationIds() throws Exception {
        FakeStompServer f = fake();
        f.dropOn = frame -> frame.command().equals("COMMIT");
        Broker b = startBroker();
        FailoverClient client = connect(ordered(f.uri(), uri(b)).build());
        FailoverTransaction tx = client.begin();
        tx.send(persistent("/queue/doubt", "d1"));
        tx.send(persistent("/queue/doubt", "d2"));

        assertThatThrownBy(tx::commit).isInstanceOf(TransactionInDoubtException.class)
                .hasMessageContaining("committed all of it or none of it").hasMessageContaining(f.uri())
                .satisfies(e -> assertThat(((TransactionInDoubtException) e).federationIds())
                        .containsExactlyElementsOf(f.frames("SEND").stream().map(s -> s.header(FederationHeaders.FEDERATION_ID)).toList()));
        assertThat(f.frames("SEND")).allMatch(s -> tx.id().equals(s.header("transaction")));
        assertThat(tx.federationIds()).hasSize(2);
    }

    @Test
    void shouldHandOutAgainAMessageAcknowledgedInATransactionThatWasRolledBack() throws Exception {
        Broker a = startBroker();
        plain(a).send(persistent("/queue/tx-ack", "m1")).join();
        FailoverClient client = connect(ordered(uri(a)).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/tx-ack").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage m1 = s.receive(WAIT);
        FailoverTransaction tx = client.begin();
        m1.ack(tx);

        a.close();
        Broker again = restart(a);

        assertThatThrownBy(tx::commit).isInstanceOf(TransactionRolledBackException.class)
                .hasMessageContaining("delivered again");
        FailoverMessage back = s.receive(WAIT);
        assertThat(back).as("handed out again after the rollback").isNotNull();
        assertThat(back.bodyAsString()).isEqualTo("m1");
        back.ack();
        await("acknowledged").atMost(WAIT).until(() -> again.queue("/queue/tx-ack").pending() == 0
                && again.queue("/queue/tx-ack").inflight() == 0);
    }

    @Test
    void shouldCommitSendsAndAcknowledgementsTogether() throws Exception {
        Broker a = startBroker();
        plain(a).send(persistent("/queue/in", "work")).join();
        FailoverClient client = connect(ordered(uri(a)).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/in").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage work = s.receive(WAIT);

        FailoverTransaction tx = client.begin();
        tx.send(persistent("/queue/out", "result"));
        work.ack(tx);
        assertThat(a.queue("/queue/out")).as("nothing before the commit").satisfiesAnyOf(
                q -> assertThat(q).isNull(), q -> assertThat(q.pending()).isZero());
        tx.commit();

        assertThat(tx.isOpen()).isFalse();
        assertThat(a.queue("/queue/out").pending()).isEqualTo(1);
        await("input acknowledged").atMost(WAIT).until(() -> a.queue("/queue/in").pending() == 0 && a.queue("/queue/in").inflight() == 0);
    }

    @Test
    void shouldLetTheApplicationAcknowledgeAgainAfterAnAbort() throws Exception {
        Broker a = startBroker();
        plain(a).send(persistent("/queue/abort", "m1")).join();
        FailoverClient client = connect(ordered(uri(a)).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/abort").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage m1 = s.receive(WAIT);
        FailoverTransaction tx = client.begin();
        tx.send(Message.of("/queue/abort.out", "never"));
        m1.ack(tx);

        tx.abort();
        m1.ack();

        await("acknowledged outside the transaction").atMost(WAIT).until(() -> a.queue("/queue/abort").pending() == 0
                && a.queue("/queue/abort").inflight() == 0);
        assertThat(a.queue("/queue/abort.out")).satisfiesAnyOf(q -> assertThat(q).isNull(), q -> assertThat(q.pending()).isZero());
        assertThat(s.receive(NOTHING_MORE)).isNull();
    }

    @Test
    void shouldRefuseToAcknowledgeInATransactionAMessageFromAFailedConnection() throws Exception {
        Broker a = startBroker();
        Broker b = startBroker();
        plain(a).send(persistent("/queue/old", "m1")).join();
        FailoverClient client = connect(ordered(uri(a), uri(b)).build());
        FailoverSubscription s = client.subscribe(SubscriptionRequest.builder("/queue/old").ackMode(AckMode.CLIENT_INDIVIDUAL).build());
        FailoverMessage m1 = s.receive(WAIT);

        a.close();
        await("client moved to B").atMost(WAIT).until(() -> uri(b).equals(client.connectedUri()));
        FailoverTransaction tx = client.begin();

        assertThatThrownBy(() -> m1.ack(tx)).isInstanceOf(FailoverException.class)
                .hasMessageContaining("earlier connection").hasMessageContaining(tx.id());
        assertThat(tx.isOpen()).isTrue();
        tx.abort();
    }
}
