package io.fedbridge.discovery.multicast.internal;

import io.fedbridge.discovery.multicast.MulticastSecret;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What stands between the network and a multicast discovery agent: seals the datagrams the agent sends and lets
 * through only the received announcements of its group that it may act on. With a secret those are the ones
 * signed with it, timely and not seen before ({@link AnnouncementCodec}, {@link ReplayGuard}); without one, the
 * unsigned ones. Everything else is counted by reason, and the suspect kinds (unsigned, badly signed, stale,
 * replayed, too many peers) are logged at WARN at most once a minute per kind and source address, at DEBUG
 * otherwise, so that a flood of forgeries cannot flood the log.
 *
 * <p>Thread-safe: {@link #seal} may be called from any thread, {@link #admit} too (calls are serialized).
 */
public final class AnnouncementGate {

    private static final Logger LOG = LoggerFactory.getLogger(AnnouncementGate.class);

    /** A suspect datagram is warned about at most once per this period per kind and source address. */
    private static final Duration WARN_PERIOD = Duration.ofMinutes(1);

    /** How many sources {@link WarnLimiter} keeps track of. */
    private static final int WARN_SOURCES = 1024;

    /** The longest seal there can be, to see whether an announcement fits in a datagram. */
    private static final AnnouncementCodec.Seal LONGEST_SEAL = new AnnouncementCodec.Seal(999_999_999_999_999L, -1L,
            999_999_999_999_999_999L);

    private final String group;
    private final Duration maxClockSkew;
    private final int maxPeers;
    private final Clock clock;
    private final String display;
    private final AnnouncementCodec codec;
    /** Random per gate (per agent), so that a restarted broker's sequence numbers are not taken for replays. */
    private final long session = new SecureRandom().nextLong();
    private final AtomicLong sequence = new AtomicLong();
    /** Null without a secret; guarded by itself. */
    private final ReplayGuard replayGuard;
    private final WarnLimiter warnLimiter = new WarnLimiter(WARN_PERIOD, WARN_SOURCES);

    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong otherGroup = new AtomicLong();
    private final AtomicLong unsigned = new AtomicLong();
    private final AtomicLong badSignature = new AtomicLong();
    private final AtomicLong stale = new AtomicLong();
    private final AtomicLong replayed = new AtomicLong();
    private final AtomicLong overMaxPeers = new AtomicLong();

    /**
     * @param secret   the group's secret, or null for unsigned announcements
     * @param maxPeers the most peers the agent takes on; the gate remembers 4 times as many senders against replays
     * @param display  how log lines name the agent
     */
    public AnnouncementGate(String group, MulticastSecret secret, Duration maxClockSkew, int maxPeers, Clock clock,
                            String display) {
        this.group = group;
        this.maxClockSkew = maxClockSkew;
        this.maxPeers = maxPeers;
        this.clock = clock;
        this.display = display;
        this.codec = new AnnouncementCodec(secret);
        this.replayGuard = secret == null ? null : new ReplayGuard(maxClockSkew, 4 * maxPeers + 1);
    }

    /** {@code a} as a datagram, signed now (if the gate has a secret). */
    public byte[] seal(Announcement a) {
        return codec.encode(a, codec.isSigning()
                ? new AnnouncementCodec.Seal(clock.millis(), session, sequence.incrementAndGet()) : null);
    }

    /**
     * Checks that {@code a} fits in a datagram however long its seal.
     *
     * @throws IllegalArgumentException if it does not
     */
    public void checkFits(Announcement a) {
        codec.encode(a, LONGEST_SEAL);
    }

    /** The announcement in {@code datagram} if this group's agent may act on it; else null, and it is counted. */
    public Announcement admit(ByteBuffer datagram, InetSocketAddress sender) {
        AnnouncementCodec.Decoded decoded = codec.decode(datagram);
        if (decoded instanceof AnnouncementCodec.Invalid invalid) {
            rejected(invalid, sender);
            return null;
        }
        AnnouncementCodec.Valid valid = (AnnouncementCodec.Valid) decoded;
        Announcement a = valid.announcement();
        if (!a.group().equals(group)) {
            otherGroup.incrementAndGet();
            LOG.trace("{}: ignoring {} of group '{}'", display, a.type(), a.group());
            return null;
        }
        return valid.seal() == null || fresh(a, valid.seal(), sender) ? a : null;
    }

    private void rejected(AnnouncementCodec.Invalid invalid, InetSocketAddress sender) {
        if (invalid.claimedGroup() != null && !invalid.claimedGroup().equals(group)) {
            // Another group on the same address, perhaps with a secret of its own: none of this group's business.
            otherGroup.incrementAndGet();
            return;
        }
        switch (invalid.problem()) {
            case MALFORMED -> {
                long n = malformed.incrementAndGet();
                if (n == 1 || n % 1000 == 0) {
                    LOG.warn("{}: ignoring a malformed datagram from {} ({} so far): {}", display, sender, n,
                            invalid.reason());
                } else {
                    LOG.debug("{}: ignoring a malformed datagram from {}: {}", display, sender, invalid.reason());
                }
            }
            case UNSIGNED -> warn("unsigned", unsigned.incrementAndGet(), sender, invalid.reason());
            case BAD_SIGNATURE -> warn("badly signed", badSignature.incrementAndGet(), sender, invalid.reason());
        }
    }

    private boolean fresh(Announcement a, AnnouncementCodec.Seal seal, InetSocketAddress sender) {
        Instant now = clock.instant();
        ReplayGuard.Verdict verdict;
        synchronized (replayGuard) {
            verdict = replayGuard.check(a.brokerId(), seal, now);
        }
        switch (verdict) {
            case FRESH -> {
                return true;
            }
            case STALE -> warn("stale", stale.incrementAndGet(), sender, "its timestamp "
                    + Instant.ofEpochMilli(seal.timestampMillis()) + " is more than " + maxClockSkew + " from this "
                    + "broker's clock (" + now + "): a replay, or the brokers' clocks disagree (see maxClockSkew)");
            case REPLAYED -> warn("replayed", replayed.incrementAndGet(), sender, "broker id " + a.brokerId()
                    + " sent sequence number " + seal.sequence() + " of session " + Long.toHexString(seal.session())
                    + " before, or a later session");
            case FULL -> overMaxPeers(a, sender);
        }
        return false;
    }

    /** Counts and reports an announcement of a new peer turned away because {@code maxPeers} are known. */
    public void overMaxPeers(Announcement a, InetSocketAddress sender) {
        warn("new peer's", overMaxPeers.incrementAndGet(), sender, "already " + maxPeers + " peers (maxPeers), not "
                + "taking on broker " + a.brokerName() + " (" + a.brokerId() + ")");
    }

    private void warn(String kind, long count, InetSocketAddress sender, String reason) {
        String source = sender == null || sender.getAddress() == null ? String.valueOf(sender)
                : sender.getAddress().getHostAddress();
        if (warnLimiter.shouldWarn(kind + ' ' + source, clock.instant())) {
            LOG.warn("{}: ignoring a {} announcement from {} ({} so far from all sources; warned at most once a "
                    + "minute per source): {}", display, kind, source, count, reason);
        } else {
            LOG.debug("{}: ignoring a {} announcement from {}: {}", display, kind, source, reason);
        }
    }

    public long malformed() {
        return malformed.get();
    }

    public long otherGroup() {
        return otherGroup.get();
    }

    public long unsigned() {
        return unsigned.get();
    }

    public long badSignature() {
        return badSignature.get();
    }

    public long stale() {
        return stale.get();
    }

    public long replayed() {
        return replayed.get();
    }

    public long overMaxPeers() {
        return overMaxPeers.get();
    }
}
