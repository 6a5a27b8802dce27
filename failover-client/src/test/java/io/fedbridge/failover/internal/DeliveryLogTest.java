package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(log.confirmedCount()).isEqualTo(1);
        log.forget("m1");
        assertThat(log.status("m1")).isEqualTo(Status.UNKNOWN);
    }

    @Test
    void shouldRememberOnlyTheLastAuditDepthConfirmedIdsButEveryUnconfirmedOne() {
        DeliveryLog log = new DeliveryLog(3);
        for (int i = 0; i < 10; i++) {
            log.handed("u" + i, null);
            log.acked("u" + i); // never confirmed: the broker may still redeliver them
        }
        for (int i = 0; i < 10; i++) {
            log.handed("c" + i, null);
            log.acked("c" + i);
            log.confirmed("c" + i);
        }

        assertThat(log.confirmedCount()).isEqualTo(3);
        assertThat(log.status("c9")).isEqualTo(Status.ACKED);
        assertThat(log.status("c0")).as("evicted").isEqualTo(Status.UNKNOWN);
        assertThat(log.unconfirmedCount()).isEqualTo(10);
        assertThat(log.status("u0")).isEqualTo(Status.ACKED);
    }

    @Test
    void shouldBoundUnconfirmedIdsAtTenTimesTheDepthAsALastResort() {
        DeliveryLog log = new DeliveryLog(2);
        for (int i = 0; i < 25; i++) {
            log.acked("u" + i);
        }
        assertThat(log.unconfirmedCount()).isEqualTo(20);
        assertThat(log.confirmedCount()).isEqualTo(2);
    }
}
