package io.fedbridge.broker.store;

/**
 * How durable a write is when its future completes.
 */
public enum Durability {
    /** The future completes after the data was forced to disk ({@code FileChannel.force}); survives power loss. */
    SYNC,
    /**
     * The future completes once the data is in the operating system's page cache (survives a crash of the JVM,
     * not of the machine); the data is forced to disk at most {@code asyncFlushInterval} later.
     */
    ASYNC
}
