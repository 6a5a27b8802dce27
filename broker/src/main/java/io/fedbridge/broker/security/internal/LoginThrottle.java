package io.fedbridge.broker.security.internal;

import io.github.resilience4j.core.IntervalFunction;
import java.net.InetAddress;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Failed logins per source address: after {@code maxFailures} failures in a row an address is locked out,
 * first for {@code lockout}, then twice as long after each further run of failures (up to
 * {@code maxLockout}); a success clears its record. At most {@value #MAX_IN_FLIGHT} logins from one address
 * are checked at a time, so one source cannot fill the authentication threads' queue. Thread-safe.
 */
public final class LoginThrottle {

    static final int MAX_IN_FLIGHT = 4;
    private static final int MAX_TRACKED = 100_000;

    private static final class State {
        int failures;
        int lockouts;
        int inFlight;
        Instant lockedUntil = Instant.MIN;
        Instant lastFailure = Instant.MIN;
    }

    private final int maxFailures;
    private final Duration maxLockout;
    private final IntervalFunction backOff;
    private final Clock clock;
    private final Map<InetAddress, State> states = new HashMap<>();

    public LoginThrottle(int maxFailures, Duration lockout, Duration maxLockout, Clock clock) {
        this.maxFailures = maxFailures;
        this.maxLockout = maxLockout;
        this.backOff = IntervalFunction.ofExponentialBackoff(lockout, 2.0, maxLockout);
        this.clock = clock;
    }

    /**
     * Starts a login from {@code address}: null if it may proceed (then call {@link #finished} once), else
     * why not, for the ERROR frame.
     */
    public synchronized String tryBegin(InetAddress address) {
        Instant now = clock.instant();
        State s = states.get(address);
        if (s != null && now.isBefore(s.lockedUntil)) {
            long seconds = Math.max(1, Duration.between(now, s.lockedUntil).toSeconds());
            return "too many failed logins from " + address.getHostAddress() + "; try again in " + seconds + " s";
        }
        if (s != null && s.inFlight >= MAX_IN_FLIGHT) {
            return "too many logins in progress from " + address.getHostAddress() + "; try again later";
        }
        if (s == null) {
            if (states.size() >= MAX_TRACKED) {
                purge(now);
            }
            s = new State();
            states.put(address, s);
        }
        s.inFlight++;
        return null;
    }

    /** Ends a login begun with {@link #tryBegin}. */
    public synchronized void finished(InetAddress address, boolean success) {
        State s = states.get(address);
        if (s == null) {
            return;
        }
        s.inFlight--;
        Instant now = clock.instant();
        if (success) {
            s.failures = 0;
            s.lockouts = 0;
        } else {
            if (s.lastFailure.plus(maxLockout).isBefore(now)) {
                s.failures = 0; // old failures are forgiven
            }
            s.failures++;
            s.lastFailure = now;
            if (maxFailures > 0 && s.failures >= maxFailures) {
                s.lockouts++;
                s.failures = 0;
                s.lockedUntil = now.plusMillis(backOff.apply(s.lockouts));
            }
        }
        if (s.inFlight == 0 && s.failures == 0 && s.lockouts == 0) {
            states.remove(address);
        }
    }

    /** Ends a login begun with {@link #tryBegin} that was never checked (the broker was too busy). */
    public synchronized void abandoned(InetAddress address) {
        State s = states.get(address);
        if (s != null && --s.inFlight == 0 && s.failures == 0 && s.lockouts == 0) {
            states.remove(address);
        }
    }

    /** Whether {@code address} is locked out now. */
    public synchronized boolean isLockedOut(InetAddress address) {
        State s = states.get(address);
        return s != null && clock.instant().isBefore(s.lockedUntil);
    }

    private void purge(Instant now) {
        for (Iterator<State> it = states.values().iterator(); it.hasNext(); ) {
            State s = it.next();
            if (s.inFlight == 0 && !now.isBefore(s.lockedUntil) && s.lastFailure.plus(maxLockout).isBefore(now)) {
                it.remove();
            }
        }
        if (states.size() >= MAX_TRACKED) {
            // Still full: forget those not locked out rather than grow without bound.
            states.values().removeIf(s -> s.inFlight == 0 && !now.isBefore(s.lockedUntil));
        }
    }
}
