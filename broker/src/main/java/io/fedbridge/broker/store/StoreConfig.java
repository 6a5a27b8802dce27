package io.fedbridge.broker.store;

import java.nio.file.Path;
import java.time.Duration;

/**
 * The configuration of a {@link JournalMessageStore}. Immutable; build with {@link #builder()} or take
 * {@link #ofDefaults(Path)}:
 *
 * <pre>{@code
 * JournalMessageStore store = JournalMessageStore.open(
 *         StoreConfig.builder().directory(Path.of("data/broker-a")).durability(Durability.ASYNC).build());
 * }</pre>
 *
 * @param directory           where the journal lives; created if missing. Holds only the store's own files
 *                            ({@code fedbridge.lock}, {@code journal-NNNNNNNNNN.log}) and, optionally, MapDB
 *                            files named {@code dedupe*.db} (a {@link DedupeLog})
 * @param durability          when an {@code add}/{@code remove} future completes; default {@link Durability#SYNC}
 * @param segmentSize         bytes per journal segment file, 64 KiB to 1 GiB; default 32 MiB. A record larger than a
 *                            segment gets a segment of its own
 * @param asyncFlushInterval  the longest time written data stays unforced (in {@code ASYNC} mode, and for the
 *                            best-effort redelivery counts in {@code SYNC} mode); positive, default 100 ms
 * @param maxBatch            the most operations written with one write and one force (group commit); 1 to 65536,
 *                            default 1024
 * @param preallocate         whether segment files are zero-filled to {@code segmentSize} before use (in the
 *                            background, forced every 256 KiB so that no sync waits behind a whole segment); on
 *                            ext4 this makes each {@code force} cheaper (~1.5-2x more syncs/s measured here). Default true
 * @param compactionThreshold a sealed segment whose live records take at most this fraction of its bytes is
 *                            compacted: its live records are rewritten at the head and the file deleted. Greater than
 *                            0 and less than 1, default 0.25
 */
public record StoreConfig(Path directory, Durability durability, long segmentSize, Duration asyncFlushInterval,
                          int maxBatch, boolean preallocate, double compactionThreshold) {

    public static final long DEFAULT_SEGMENT_SIZE = 32L * 1024 * 1024;
    public static final long MIN_SEGMENT_SIZE = 64L * 1024;
    public static final long MAX_SEGMENT_SIZE = 1024L * 1024 * 1024;
    public static final Duration DEFAULT_ASYNC_FLUSH_INTERVAL = Duration.ofMillis(100);
    public static final int DEFAULT_MAX_BATCH = 1024;
    public static final int MAX_MAX_BATCH = 65536;
    public static final double DEFAULT_COMPACTION_THRESHOLD = 0.25;

    public StoreConfig {
        if (directory == null) {
            throw new IllegalArgumentException("directory must be set, but was null");
        }
        if (durability == null) {
            throw new IllegalArgumentException("durability must be SYNC or ASYNC, but was null");
        }
        if (segmentSize < MIN_SEGMENT_SIZE || segmentSize > MAX_SEGMENT_SIZE) {
            throw new IllegalArgumentException("segmentSize must be between " + MIN_SEGMENT_SIZE + " and "
                    + MAX_SEGMENT_SIZE + " bytes, but was " + segmentSize);
        }
        if (asyncFlushInterval == null || asyncFlushInterval.isNegative() || asyncFlushInterval.isZero()) {
            throw new IllegalArgumentException("asyncFlushInterval must be positive, but was " + asyncFlushInterval);
        }
        if (maxBatch < 1 || maxBatch > MAX_MAX_BATCH) {
            throw new IllegalArgumentException("maxBatch must be between 1 and " + MAX_MAX_BATCH + ", but was " + maxBatch);
        }
        if (!(compactionThreshold > 0 && compactionThreshold < 1)) {
            throw new IllegalArgumentException("compactionThreshold must be > 0 and < 1, but was " + compactionThreshold);
        }
    }

    /** The defaults for a store in {@code directory}. */
    public static StoreConfig ofDefaults(Path directory) {
        return builder().directory(directory).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .directory(directory)
                .durability(durability)
                .segmentSize(segmentSize)
                .asyncFlushInterval(asyncFlushInterval)
                .maxBatch(maxBatch)
                .preallocate(preallocate)
                .compactionThreshold(compactionThreshold);
    }

    /** Builds a {@link StoreConfig}; every setting starts at its default except the directory. */
    public static final class Builder {
        private Path directory;
        private Durability durability = Durability.SYNC;
        private long segmentSize = DEFAULT_SEGMENT_SIZE;
        private Duration asyncFlushInterval = DEFAULT_ASYNC_FLUSH_INTERVAL;
        private int maxBatch = DEFAULT_MAX_BATCH;
        private boolean preallocate = true;
        private double compactionThreshold = DEFAULT_COMPACTION_THRESHOLD;

        private Builder() {
        }

        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        public Builder segmentSize(long bytes) {
            this.segmentSize = bytes;
            return this;
        }

        public Builder asyncFlushInterval(Duration interval) {
            this.asyncFlushInterval = interval;
            return this;
        }

        public Builder maxBatch(int maxBatch) {
            this.maxBatch = maxBatch;
            return this;
        }

        public Builder preallocate(boolean preallocate) {
            this.preallocate = preallocate;
            return this;
        }

        public Builder compactionThreshold(double fraction) {
            this.compactionThreshold = fraction;
            return this;
        }

        public StoreConfig build() {
            return new StoreConfig(directory, durability, segmentSize, asyncFlushInterval, maxBatch, preallocate,
                    compactionThreshold);
        }
    }
}
