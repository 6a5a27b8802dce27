package io.fedbridge.broker.internal;

import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Scheduled delivery: a message whose {@value #HEADER} header (epoch milliseconds, Artemis' STOMP name; a JMS delivery
 * delay) lies in the future stays in its queue, or topic subscription, undelivered until then, to local consumers and
 * bridges alike; messages behind it are not held up. The time travels with the message, so a bridge forwards it once
 * it is due and the peer delivers it at once, and a persistent message keeps its schedule across a restart.
 *
 * <p>One per {@link QueueDestination}, under its monitor: dispatch skips a message that is not due
 * ({@link #skip}) and this arms one timer for the earliest such message, which runs the queue's dispatch again. Each
 * dispatch pass looks at every waiting scheduled message, so thousands of them on one busy queue cost dispatch time.
 */
final class ScheduledDelivery {

    static final String HEADER = "AMQ_SCHEDULED_TIME";

    private final ScheduledExecutorService scheduler;
    private final Runnable dispatch;
    /** The time the armed timer fires, or 0 when none is armed. */
    private long armedFor;

    ScheduledDelivery(ScheduledExecutorService scheduler, Runnable dispatch) {
        this.scheduler = scheduler;
        this.dispatch = dispatch;
    }

    /** The header's value, or 0 (deliver at once) if it is absent or not a number. */
    static long parse(String value) {
        if (value == null) {
            return 0;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    static boolean isLater(BrokerMessage m, long now) {
        return m.deliverAt > now;
    }

    /** Whether dispatch must pass over {@code m} for now; if so, a dispatch runs again when it is due. */
    synchronized boolean skip(BrokerMessage m, long now) {
        if (m.deliverAt <= now) {
            return false;
        }
        if (armedFor == 0 || m.deliverAt < armedFor) {
            armedFor = m.deliverAt;
            scheduler.schedule(this::fire, m.deliverAt - now, TimeUnit.MILLISECONDS);
        }
        return true;
    }

    private void fire() {
        synchronized (this) {
            armedFor = 0;
        }
        dispatch.run();
    }
}
