package io.fedbridge.samples;

/**
 * A JVM shutdown hook (Ctrl-C, SIGTERM, {@code System.exit}) that is removed again on {@link #close()},
 * so a command that ends normally leaves nothing behind in the JVM.
 */
final class ShutdownHook implements AutoCloseable {

    private final Thread thread;

    private ShutdownHook(Thread thread) {
        this.thread = thread;
    }

    static ShutdownHook register(String name, Runnable action) {
        Thread t = new Thread(action, name);
        Runtime.getRuntime().addShutdownHook(t);
        return new ShutdownHook(t);
    }

    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(thread);
        } catch (IllegalStateException shuttingDown) {
            // The JVM is already shutting down: the hook runs (or ran) and does the cleanup.
        }
    }
}
