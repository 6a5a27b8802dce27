package io.fedbridge.broker.internal;

import io.fedbridge.broker.ResourceLimits;
import io.fedbridge.core.StompFrame;
import io.netty.channel.Channel;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@link ResourceLimits} one connection is held to: the CONNECT deadline, its subscriptions, its transactions
 * (their number, and the bytes they hold, counted in the broker's memory) and what it may create (destinations,
 * durable subscriptions). Each check returns null when allowed, or the text of the ERROR frame that names the limit;
 * the session sends it and closes. Used by one {@link ServerSession} on its event loop only.
 */
final class SessionLimits {

    private final BrokerCore core;
    private final ResourceLimits limits;
    private final Map<String, Long> transactionBytes = new HashMap<>();
    private ScheduledFuture<?> connectDeadline;

    SessionLimits(BrokerCore core) {
        this.core = core;
        this.limits = core.config.resourceLimits();
    }

    // ---------------------------------------------------------------- CONNECT deadline

    /** Runs {@code onTimeout} on the connection's event loop once connectAttemptTimeout has passed (unless cancelled). */
    void armConnectDeadline(Channel channel, Runnable onTimeout) {
        Duration timeout = limits.connectAttemptTimeout();
        if (!timeout.isZero()) {
            connectDeadline = channel.eventLoop().schedule(onTimeout, timeout.toNanos(), TimeUnit.NANOSECONDS);
        }
    }

    String connectTimedOut() {
        return "no CONNECT within " + describe(limits.connectAttemptTimeout()) + " (connectAttemptTimeout)";
    }

    /** The CONNECT completed, or the connection closed: the deadline no longer applies. */
    void disarmConnectDeadline() {
        if (connectDeadline != null) {
            connectDeadline.cancel(false);
            connectDeadline = null;
        }
    }

    // ---------------------------------------------------------------- subscriptions

    /**
     * Checks a SUBSCRIBE to {@code destination} on a connection with {@code open} subscriptions: the number of
     * subscriptions, a destination it would create, a durable subscription it would create.
     */
    String refuseSubscribe(StompFrame f, String destination, int open, String connectClientId) {
        int max = limits.maxSubscriptionsPerConnection();
        if (max != 0 && open >= max) {
            return "SUBSCRIBE rejected: connection already has " + open + " subscriptions (maxSubscriptionsPerConnection="
                    + max + ")";
        }
        String durableName = SessionHeaders.durableName(f);
        if (durableName != null) {
            String clientId = f.header("client-id") != null ? f.header("client-id") : connectClientId;
            int maxDurables = limits.maxDurableSubscriptionsPerClientId();
            if (clientId != null && maxDurables != 0 && !core.hasDurable(clientId, durableName)) {
                int held = core.durableSubscriptions(clientId);
                if (held >= maxDurables) {
                    return "SUBSCRIBE rejected: client-id '" + clientId + "' already has " + held
                            + " durable subscriptions (maxDurableSubscriptionsPerClientId=" + maxDurables + ")";
                }
            }
            return null; // a durable subscription's own queue is no destination
        }
        String refused = core.refuseNewDestination(destination);
        return refused == null ? null : "SUBSCRIBE rejected: " + refused;
    }

    // ---------------------------------------------------------------- transactions

    /** Checks a BEGIN on a connection with {@code open} transactions. */
    String refuseBegin(int open) {
        int max = limits.maxTransactionsPerConnection();
        if (max != 0 && open >= max) {
            return "BEGIN rejected: connection already has " + open + " open transactions (maxTransactionsPerConnection="
                    + max + ")";
        }
        return null;
    }

    /**
     * Counts a SEND in transaction {@code tx} in the broker's memory until the transaction ends; refuses it if that
     * would take the memory over memoryLimit. Refused, not paused: only the transaction's own COMMIT or ABORT frees
     * its bytes, and a paused connection would never read it.
     */
    String holdInTransaction(String tx, StompFrame f) {
        long bytes = f.body().length + 64L;
        for (int i = 0; i < f.headers().size(); i++) {
            bytes += f.headers().name(i).length() + f.headers().value(i).length() + 32L;
        }
        long used = core.memory.used();
        if (used + bytes > core.memory.limit()) {
            return "SEND rejected: transaction '" + tx + "' would take the broker's memory over memoryLimit="
                    + core.memory.limit() + " bytes (" + used + " held, " + transactionBytes.getOrDefault(tx, 0L)
                    + " of them by this transaction, and this message is " + bytes + ")";
        }
        core.memory.reserve(bytes);
        transactionBytes.merge(tx, bytes, Long::sum);
        return null;
    }

    /** Transaction {@code tx} was committed or aborted: its messages leave the connection's hold. */
    void transactionEnded(String tx) {
        Long bytes = transactionBytes.remove(tx);
        if (bytes != null) {
            core.memory.release(bytes);
        }
    }

    /** The connection closed: releases what it still held. */
    void close() {
        disarmConnectDeadline();
        long held = 0;
        for (long b : transactionBytes.values()) {
            held += b;
        }
        transactionBytes.clear();
        if (held > 0) {
            core.memory.release(held);
        }
    }

    /** 30s, 1500ms, 2m: as a person would write the duration. */
    static String describe(Duration d) {
        if (d.toMillis() % 1000 != 0 || d.isZero()) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        return s % 60 == 0 ? s / 60 + "m" : s + "s";
    }
}
