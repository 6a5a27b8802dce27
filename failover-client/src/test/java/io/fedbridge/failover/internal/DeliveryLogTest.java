package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.internal.DeliveryLog.Status;
import org.junit.jupiter.api.Test;

class DeliveryLogTest {

    @Test
    void shouldTrackAMessageFromHandedToAcknowledgedToConfirmed() {
        DeliveryLog log = new DeliveryLog(10);
        assertThat(log.status("m1")).isEqualTo(Status.UNKNOWN);

        log.handed("m1", null);
        assertThat(log.status("m1")).isEqualTo(Status.HANDED);
        log.acked("m1");
        assertThat(log.status("m1")).isEqualTo(Status.ACKED);
        assertThat(log.unconfirmedCount()).isEqualTo(1);
        log.confirmed("m1");
        assertThat(log.status("m1")).isEqualTo(Status.ACKED);
        assertThat(log.unconfirmedCount()).isZero();
        log.forget("m1");
        assertThat(log.status("m1")).isEqualTo(Status.UNKNOWN);
    }

    /** The copy KillNineFailoverIT needed auditDepth=500000 for: a resent message's first copy, after many more. */
    @Test
    void shouldRecogniseACopyOfAProducersMessageHoweverManyMessagesCameAfterIt() {
        DeliveryLog log = new DeliveryLog(FailoverConfig.DEFAULT_AUDIT_DEPTH);
        for (int n = 1; n <= 20 * FailoverConfig.DEFAULT_AUDIT_DEPTH; n++) {
            String id = "pScope:client-key:1:" + n;
            log.handed(id, null);
            log.acked(id);
            log.confirmed(id);
        }
        assertThat(log.status("pScope:client-key:1:1")).as("200,000 messages later").isEqualTo(Status.ACKED);
        assertThat(log.status("pScope:client-key:1:200001")).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void shouldHandOutALateFirstDeliveryAndRecogniseItsCopiesAfterwards() {
        DeliveryLog log = new DeliveryLog(10);
        for (int n = 1; n <= 100; n++) {
            if (n != 40) { // held by a broker that died; it arrives after its restart
                log.handed("p:" + n, null);
                log.acked("p:" + n);
                log.confirmed("p:" + n);
            }
        }
        assertThat(log.status("p:40")).isEqualTo(Status.UNKNOWN);
        log.handed("p:40", null);
        log.acked("p:40");
        log.confirmed("p:40");
        assertThat(log.status("p:40")).isEqualTo(Status.ACKED);
        assertThat(log.auditSize()).isEqualTo(1);
    }

    @Test
    void shouldHandOutAgainAMessageForgottenByARolledBackTransaction() {
        DeliveryLog log = new DeliveryLog(10);
        for (int n = 1; n <= 5; n++) {
            log.handed("p:" + n, null);
            log.acked("p:" + n);
        }
        log.forget("p:3");
        assertThat(log.status("p:3")).isEqualTo(Status.UNKNOWN);
        assertThat(log.status("p:2")).isEqualTo(Status.ACKED);
        assertThat(log.status("p:4")).isEqualTo(Status.ACKED);
    }

    @Test
    void shouldRememberOnlyTheLastAuditDepthIdsAForeignBrokerGaveButEveryUnconfirmedOne() {
        DeliveryLog log = new DeliveryLog(3);
        for (int i = 0; i < 10; i++) {
            log.handed("connection:c1/message-id:u" + i, null);
            log.acked("connection:c1/message-id:u" + i); // never confirmed: the broker may still redeliver them
        }
        for (int i = 0; i < 10; i++) {
            String id = "connection:c1/message-id:c" + i;
            log.handed(id, null);
            log.acked(id);
            log.confirmed(id);
        }

        assertThat(log.auditSize()).isEqualTo(3);
        assertThat(log.status("connection:c1/message-id:c9")).isEqualTo(Status.ACKED);
        assertThat(log.status("connection:c1/message-id:c0")).as("forgotten").isEqualTo(Status.UNKNOWN);
        assertThat(log.unconfirmedCount()).isEqualTo(10);
        assertThat(log.status("connection:c1/message-id:u0")).isEqualTo(Status.ACKED);
    }

    @Test
    void shouldBoundUnconfirmedIdsAtTenTimesTheDepthAsALastResort() {
        DeliveryLog log = new DeliveryLog(2);
        for (int i = 0; i < 25; i++) {
            log.acked("u" + i);
        }
        assertThat(log.unconfirmedCount()).isEqualTo(20);
        assertThat(log.auditSize()).as("u0-u24: one range").isEqualTo(1);
        assertThat(log.status("u0")).as("dropped from the unconfirmed, still in the audit").isEqualTo(Status.ACKED);
    }
}
