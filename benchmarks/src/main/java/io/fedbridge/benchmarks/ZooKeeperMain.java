package io.fedbridge.benchmarks;

import java.io.File;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;

/**
 * Child JVM of the {@code ha} benchmark: a single ZooKeeper server (curator-test's {@link TestingServer}) on a port the
 * OS picks, data in a temporary directory deleted at the end. Argument: {@code TICK_MS}, ZooKeeper's
 * {@code tickTime} (the server grants a session timeout between 2 and 20 ticks). Prints
 * {@code READY 127.0.0.1:PORT} and runs until its stdin closes.
 */
public final class ZooKeeperMain {

    private ZooKeeperMain() {
    }

    public static void main(String[] args) throws Exception {
        int tick = args.length > 0 ? Integer.parseInt(args[0]) : 2000;
        InstanceSpec spec = new InstanceSpec((File) null, -1, -1, -1, true, 1, tick, -1);
        TestingServer server = new TestingServer(spec, true);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> close(server), "zookeeper-bench-stop"));
        ChildProtocol.ready("127.0.0.1:" + server.getPort() + " tickMillis=" + tick);
        ChildProtocol.awaitStdinClosed();
        close(server);
        System.exit(0);
    }

    private static void close(TestingServer server) {
        try {
            server.close();
        } catch (Exception e) {
            System.err.println("ZooKeeper did not stop cleanly: " + e);
        }
    }
}
