package io.fedbridge.broker.testing;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.core.bridge.BridgeStats;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * Run by {@link ChildBroker} in a child JVM, to be killed with SIGKILL:
 * {@code ChildBrokerMain NAME DATA_DIR [PORT] [NETWORK_CONNECTOR_URI]}.
 *
 * <p>Starts broker {@code NAME} on {@code tcp://127.0.0.1:PORT} (0 or absent: any free port) with its data (SYNC
 * durability) in {@code DATA_DIR} and, if given, one network connector; prints {@code READY <uri>} and runs until it
 * is killed. If the broker cannot start (e.g. the port is still taken) it prints {@code FAILED <reason>} and exits with
 * status 3. Each {@code STATS} line on its standard input is answered with a {@code STATS ...} line (see
 * {@link #stats(Broker)}); its queues and bridges go to stderr (the child's log) whenever they change, at most every
 * 500 ms, so that a test that times out can show where messages were held. It exits when its standard input closes,
 * i.e. when the test JVM is gone, so that no broker outlives its test.
 *
 * <p>The broker offers heart-beats every {@link #HEART_BEAT}: a peer's offer bounds how often a bridge can ask for
 * them (STOMP takes the larger of the two), so bridges asking for 1 s get 1 s.
 */
public final class ChildBrokerMain {

    static final Duration HEART_BEAT = Duration.ofMillis(500);
    static final int EXIT_START_FAILED = 3;

    private ChildBrokerMain() {
    }

    /** {@code duplicatesDropped=N bridges=STATE/pending/forwarded/acked/duplicates,...} */
    private static String stats(Broker broker) {
        StringBuilder sb = new StringBuilder("duplicatesDropped=").append(broker.duplicatesDropped()).append(" bridges=");
        for (BridgeStats s : broker.bridges()) {
            sb.append(s.state()).append('/').append(s.pending()).append('/').append(s.forwarded()).append('/')
                    .append(s.acked()).append('/').append(s.duplicates()).append(',');
        }
        return sb.toString();
    }

    private static void reportStatus(Broker broker) {
        String[] last = {""};
        Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "status-reporter");
            t.setDaemon(true);
            return t;
        }).scheduleWithFixedDelay(() -> {
            String now = "STATUS " + broker.name() + " " + broker.id() + " queues " + broker.queues() + " bridges " + broker.bridges();
            if (!now.equals(last[0])) {
                System.err.println(LocalTime.now() + " " + now);
                last[0] = now;
            }
        }, 500, 500, TimeUnit.MILLISECONDS);
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: ChildBrokerMain NAME DATA_DIR [PORT] [NETWORK_CONNECTOR_URI]");
            System.exit(2);
        }
        int port = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        BrokerConfig.Builder config = BrokerConfig.builder(args[0]).listen("tcp://127.0.0.1:" + port)
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
            Runtime.getRuntime().halt(EXIT_START_FAILED);
            return;
        }
        System.out.println("READY " + broker.connectUris().get(0));
        System.out.flush();
        reportStatus(broker);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("STATS")) {
                System.out.println("STATS " + stats(broker));
                System.out.flush();
            }
        }
        Runtime.getRuntime().halt(2);
    }
}
