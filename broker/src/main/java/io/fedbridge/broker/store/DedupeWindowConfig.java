package io.fedbridge.broker.store;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;

/**
 * The configuration of a {@link DedupeWindow}. Immutable; build with {@link #builder()} or take
 * {@link #ofDefaults(Path)}.
 *
 * @param file                the MapDB file (created if missing, with its parent directories). Inside a
 *                            {@link JournalMessageStore} directory its name must match {@code dedupe*.db}
 * @param maxSize             the most ids remembered; beyond it the oldest are forgotten. 1 to 100,000,000; default
 *                            20,000 (Artemis keeps 20,000 duplicate ids per address)
 * @param expireAfterCreate   how long an id is remembered after it was first seen; positive, default 1 hour
 * @param durability          {@link Durability#SYNC}: {@code firstSeen} returns once the id is committed to disk
 *                            (concurrent callers share one commit); {@link Durability#ASYNC}: ids are committed every
 *                            {@code asyncCommitInterval}. Default SYNC
 * @param asyncCommitInterval the commit period in ASYNC mode; positive, default 100 ms
 * @param clock               the clock deciding expiry; default the system clock
 */
public record DedupeWindowConfig(Path file, int maxSize, Duration expireAfterCreate, Durability durability,
                                 Duration asyncCommitInterval, Clock clock) {

    public static final String DEFAULT_FILE_NAME = "dedupe.db";
    public static final int DEFAULT_MAX_SIZE = 20_000;
    public static final int MAX_MAX_SIZE = 100_000_000;
    public static final Duration DEFAULT_EXPIRE_AFTER_CREATE = Duration.ofHours(1);
    public static final Duration DEFAULT_ASYNC_COMMIT_INTERVAL = Duration.ofMillis(100);

    public DedupeWindowConfig {
        if (file == null) {
            throw new IllegalArgumentException("file must be set, but was null");
        }
        if (maxSize < 1 || maxSize > MAX_MAX_SIZE) {
            throw new IllegalArgumentException("maxSize must be between 1 and " + MAX_MAX_SIZE + ", but was " + maxSize);
        }
        if (expireAfterCreate == null || expireAfterCreate.isNegative() || expireAfterCreate.isZero()) {
            throw new IllegalArgumentException("expireAfterCreate must be positive, but was " + expireAfterCreate);
        }
        if (durability == null) {
            throw new IllegalArgumentException("durability must be SYNC or ASYNC, but was null");
        }
        if (asyncCommitInterval == null || asyncCommitInterval.isNegative() || asyncCommitInterval.isZero()) {
            throw new IllegalArgumentException("asyncCommitInterval must be positive, but was " + asyncCommitInterval);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock must be set, but was null");
        }
    }

    /** The defaults for a window kept in {@code file}. */
    public static DedupeWindowConfig ofDefaults(Path file) {
        return builder().file(file).build();
    }

    /** The defaults for a window kept beside a store, in {@code storeDirectory/dedupe.db}. */
    public static DedupeWindowConfig inStoreDirectory(Path storeDirectory) {
        return ofDefaults(storeDirectory.resolve(DEFAULT_FILE_NAME));
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .file(file)
                .maxSize(maxSize)
                .expireAfterCreate(expireAfterCreate)
                .durability(durability)
                .asyncCommitInterval(asyncCommitInterval)
                .clock(clock);
    }

    /** Builds a {@link DedupeWindowConfig}; every setting starts at its default except the file. */
    public static final class Builder {
        private Path file;
        private int maxSize = DEFAULT_MAX_SIZE;
        private Duration expireAfterCreate = DEFAULT_EXPIRE_AFTER_CREATE;
        private Durability durability = Durability.SYNC;
        private Duration asyncCommitInterval = DEFAULT_ASYNC_COMMIT_INTERVAL;
        private Clock clock = Clock.systemUTC();

        private Builder() {
        }

        public Builder file(Path file) {
            this.file = file;
            return this;
        }

        public Builder maxSize(int maxSize) {
            this.maxSize = maxSize;
            return this;
        }

        public Builder expireAfterCreate(Duration expireAfterCreate) {
            this.expireAfterCreate = expireAfterCreate;
            return this;
        }

        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        public Builder asyncCommitInterval(Duration interval) {
            this.asyncCommitInterval = interval;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public DedupeWindowConfig build() {
            return new DedupeWindowConfig(file, maxSize, expireAfterCreate, durability, asyncCommitInterval, clock);
        }
    }
}
