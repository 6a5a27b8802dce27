package io.fedbridge.broker;

import java.time.Duration;
import java.util.Objects;

/**
 * Bounds on what one client can make a broker hold, so that no connection, however it behaves, can exhaust the
 * broker for the others. A refusal is an ERROR frame naming the limit, e.g. {@code SUBSCRIBE rejected: connection
 * already has 50000 subscriptions (maxSubscriptionsPerConnection=50000)}; as every ERROR, it closes that connection
 * and only that one. Part of {@link BrokerConfig}; the same names are keys of the broker config file
 * ({@code docs/configuration.md}):
 *
 * <pre>{@code
 * BrokerConfig.builder("A").resourceLimits(l -> l.maxSlowDuration(Duration.ofSeconds(10)).minFreeDisk(1L << 30))
 * }</pre>
 *
 * The defaults stop abuse without getting in the way of large, legitimate use: 10,000 consumers on 10,000
 * distinct destinations, from one connection or many, stay far inside them.
 *
 * @param connectAttemptTimeout a connection that has not completed its CONNECT (login included) this long after it
 *                              was accepted gets {@code ERROR no CONNECT within 30s (connectAttemptTimeout)} and is
 *                              closed. Default 30 s, as ActiveMQ's {@code transport.connectAttemptTimeout}: much
 *                              longer than any real client takes, short enough that idle sockets cannot pile up;
 *                              ZERO = never
 * @param maxSubscriptionsPerConnection SUBSCRIBEs open at once on one connection; default 50,000; 0 = no limit
 * @param maxTransactionsPerConnection  transactions open at once on one connection (a BEGIN beyond it is refused);
 *                                      default 1,000; 0 = no limit. The bytes of the messages sent in open
 *                                      transactions count in {@link BrokerConfig#memoryLimit()}: a transactional SEND
 *                                      that would take the broker's memory over it is refused (not flow-controlled:
 *                                      a paused transaction could hold its bytes for ever, as only its COMMIT or ABORT,
 *                                      stuck behind the pause, releases them)
 * @param maxDestinations       queues (temporary ones included) and topics with subscribers the broker holds at once;
 *                              a SEND or SUBSCRIBE that would create one more is refused. Default 100,000; 0 = no
 *                              limit. Checked as each is created: concurrent creations may overshoot it by a few
 * @param maxDurableSubscriptionsPerClientId durable subscriptions one client-id may hold; default 1,000; 0 = no limit
 * @param maxSlowDuration       a topic subscriber that has messages waiting for it but takes none (its prefetch is
 *                              full or its socket is not being read) for this long is aborted: the broker sends an
 *                              ERROR naming this policy and closes its connection, freeing everything it held, so that
 *                              one stuck subscriber cannot fill {@code memoryLimit} and stall every producer. As
 *                              ActiveMQ's {@code abortSlowConsumerStrategy} with {@code abortConnection=true}: STOMP
 *                              can end a subscription only with an ERROR, which ends the connection anyway. Default
 *                              30 s (ActiveMQ's); ZERO = never abort
 * @param minFreeDisk           with a data directory: below this many free bytes on its disk, persistent SENDs are
 *                              flow-controlled (the producer's connection is not read) until space returns, instead
 *                              of the journal failing on a full disk; checked every second. Default 512 MiB (16
 *                              journal segments); 0 = no check
 * @param diskSpace             how free space is measured; default {@link DiskSpace#ofFileSystem()}
 */
public record ResourceLimits(Duration connectAttemptTimeout, int maxSubscriptionsPerConnection,
                             int maxTransactionsPerConnection, int maxDestinations,
                             int maxDurableSubscriptionsPerClientId, Duration maxSlowDuration, long minFreeDisk,
                             DiskSpace diskSpace) {

    public static final Duration DEFAULT_CONNECT_ATTEMPT_TIMEOUT = Duration.ofSeconds(30);
    public static final int DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION = 50_000;
    public static final int DEFAULT_MAX_TRANSACTIONS_PER_CONNECTION = 1_000;
    public static final int DEFAULT_MAX_DESTINATIONS = 100_000;
    public static final int DEFAULT_MAX_DURABLE_SUBSCRIPTIONS_PER_CLIENT_ID = 1_000;
    public static final Duration DEFAULT_MAX_SLOW_DURATION = Duration.ofSeconds(30);
    public static final long DEFAULT_MIN_FREE_DISK = 512L * 1024 * 1024;

    private static final ResourceLimits DEFAULTS = builder().build();

    public ResourceLimits {
        connectAttemptTimeout = connectAttemptTimeout == null ? DEFAULT_CONNECT_ATTEMPT_TIMEOUT : connectAttemptTimeout;
        notNegative("connectAttemptTimeout", connectAttemptTimeout);
        notNegative("maxSubscriptionsPerConnection", maxSubscriptionsPerConnection);
        notNegative("maxTransactionsPerConnection", maxTransactionsPerConnection);
        notNegative("maxDestinations", maxDestinations);
        notNegative("maxDurableSubscriptionsPerClientId", maxDurableSubscriptionsPerClientId);
        maxSlowDuration = maxSlowDuration == null ? DEFAULT_MAX_SLOW_DURATION : maxSlowDuration;
        notNegative("maxSlowDuration", maxSlowDuration);
        if (minFreeDisk < 0) {
            throw new IllegalArgumentException("minFreeDisk must be >= 0 bytes (0 = no check), but was " + minFreeDisk);
        }
        diskSpace = diskSpace == null ? DiskSpace.ofFileSystem() : diskSpace;
    }

    private static void notNegative(String name, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(name + " must be >= 0 (0 = no limit), but was " + value);
        }
    }

    private static void notNegative(String name, Duration value) {
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0 (0 = never), but was " + value);
        }
    }

    /** The defaults listed on {@link ResourceLimits}. */
    public static ResourceLimits ofDefaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder().connectAttemptTimeout(connectAttemptTimeout)
                .maxSubscriptionsPerConnection(maxSubscriptionsPerConnection)
                .maxTransactionsPerConnection(maxTransactionsPerConnection).maxDestinations(maxDestinations)
                .maxDurableSubscriptionsPerClientId(maxDurableSubscriptionsPerClientId).maxSlowDuration(maxSlowDuration)
                .minFreeDisk(minFreeDisk).diskSpace(diskSpace);
    }

    /** Not thread-safe. Starts from the defaults. */
    public static final class Builder {
        private Duration connectAttemptTimeout = DEFAULT_CONNECT_ATTEMPT_TIMEOUT;
        private int maxSubscriptionsPerConnection = DEFAULT_MAX_SUBSCRIPTIONS_PER_CONNECTION;
        private int maxTransactionsPerConnection = DEFAULT_MAX_TRANSACTIONS_PER_CONNECTION;
        private int maxDestinations = DEFAULT_MAX_DESTINATIONS;
        private int maxDurableSubscriptionsPerClientId = DEFAULT_MAX_DURABLE_SUBSCRIPTIONS_PER_CLIENT_ID;
        private Duration maxSlowDuration = DEFAULT_MAX_SLOW_DURATION;
        private long minFreeDisk = DEFAULT_MIN_FREE_DISK;
        private DiskSpace diskSpace = DiskSpace.ofFileSystem();

        private Builder() {
        }

        public Builder connectAttemptTimeout(Duration timeout) {
            this.connectAttemptTimeout = timeout;
            return this;
        }

        public Builder maxSubscriptionsPerConnection(int max) {
            this.maxSubscriptionsPerConnection = max;
            return this;
        }

        public Builder maxTransactionsPerConnection(int max) {
            this.maxTransactionsPerConnection = max;
            return this;
        }

        public Builder maxDestinations(int max) {
            this.maxDestinations = max;
            return this;
        }

        public Builder maxDurableSubscriptionsPerClientId(int max) {
            this.maxDurableSubscriptionsPerClientId = max;
            return this;
        }

        public Builder maxSlowDuration(Duration duration) {
            this.maxSlowDuration = duration;
            return this;
        }

        /** In bytes. */
        public Builder minFreeDisk(long bytes) {
            this.minFreeDisk = bytes;
            return this;
        }

        public Builder diskSpace(DiskSpace diskSpace) {
            this.diskSpace = Objects.requireNonNull(diskSpace, "diskSpace");
            return this;
        }

        public ResourceLimits build() {
            return new ResourceLimits(connectAttemptTimeout, maxSubscriptionsPerConnection, maxTransactionsPerConnection,
                    maxDestinations, maxDurableSubscriptionsPerClientId, maxSlowDuration, minFreeDisk, diskSpace);
        }
    }
}
