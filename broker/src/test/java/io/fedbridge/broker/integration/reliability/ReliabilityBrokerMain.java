package io.fedbridge.broker.integration.reliability;

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

/**
 * Run by {@link ChildBroker} in a child JVM, to be killed with SIGKILL:
 * {@code ReliabilityBrokerMain NAME DATA_DIR [PORT] [NETWORK_CONNECTOR_URI]}.
 *
 * <p>Starts broker {@code NAME} on {@code tcp://127.0.0.1:PORT} (0 or absent: any free port) with its data (SYNC
 * durability) in {@code DATA_DIR} and, if given, one network connector; prints {@code READY <uri>} and runs until it
 * is killed. Each {@code STATS} line on its standard input is answered with a {@code STATS ...} line (see
 * {@link #stats(Broker)}). If the broker cannot start (e.g. the port is still taken) it prints {@code FAILED <reason>} and exits
 * with status 3. It also exits when its standard input closes, i.e. when the test JVM is gone, so that no broker
 * outlives its test.
 *
 * <p>The broker offers heart-beats every {@link #HEART_BEAT}: a peer's offer bounds how often a bridge can ask for
 * them (STOMP takes the larger of the two), so bridges asking for 1 s get 1 s.
 */
public final class ReliabilityBrokerMain {

    static final Duration HEART_BEAT = Duration.ofMillis(500);
    static final int EXIT_START_FAILED = 3;

    private ReliabilityBrokerMain() {
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

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 4) {
            System.err.println("usage: ReliabilityBrokerMain NAME DATA_DIR [PORT] [NETWORK_CONNECTOR_URI]");
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
