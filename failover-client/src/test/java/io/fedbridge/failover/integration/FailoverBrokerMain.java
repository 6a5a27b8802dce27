package io.fedbridge.failover.integration;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/**
 * Run by {@link ChildBroker} in a child JVM, to be killed with SIGKILL:
 * {@code FailoverBrokerMain NAME DATA_DIR PORT [NETWORK_CONNECTOR_URI]}. Starts broker NAME on
 * {@code tcp://127.0.0.1:PORT} (0: any free port) with its data (SYNC durability) in DATA_DIR and, if given, one network
 * connector; prints {@code READY <uri>}, or {@code FAILED <reason>} and exits with status 3 if it cannot start (its port
 * still taken, say). It exits when its standard input closes, i.e. when the test JVM is gone, so that no broker outlives
 * its test.
 */
public final class FailoverBrokerMain {

    static final Duration HEART_BEAT = Duration.ofMillis(500);

    private FailoverBrokerMain() {
    }

    /**
     * Writes the broker's queues and bridges to stderr (the child's log) each time they change, at most every 500 ms,
     * so that a test that times out can show where messages were held.
     */
    private static void reportStatus(Broker broker) {
        String[] last = {""};
        java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "status-reporter");
            t.setDaemon(true);
            return t;
        }).scheduleWithFixedDelay(() -> {
            String now = "STATUS " + broker.name() + " " + broker.id() + " queues " + broker.queues() + " bridges " + broker.bridges();
            if (!now.equals(last[0])) {
                System.err.println(java.time.LocalTime.now() + " " + now);
                last[0] = now;
            }
        }, 500, 500, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    public static void main(String[] args) throws IOException {
        BrokerConfig.Builder config = BrokerConfig.builder(args[0]).listen("tcp://127.0.0.1:" + args[2])
                .dataDirectory(Path.of(args[1])).heartBeat(HEART_BEAT);
        if (args.length > 3) {
            config.networkConnector(args[3]);
        }
        Broker broker;
        try {
            broker = Broker.start(config.build());
        } catch (BrokerException e) {
            System.out.println("FAILED " + e.getMessage());
            System.out.flush();
            Runtime.getRuntime().halt(3);
            return;
        }
        System.out.println("READY " + broker.connectUris().get(0));
        System.out.flush();
        reportStatus(broker);
        while (System.in.read() != -1) {
            // nothing is written: this only waits for the parent to go away
        }
        Runtime.getRuntime().halt(2);
    }
}
