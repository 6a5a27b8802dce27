package io.fedbridge.benchmarks;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.ha.HaMember;
import io.fedbridge.ha.HaRole;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * Child JVM of the {@code ha} benchmark: one member of a fedbridge HA group ({@link HaMember}) listening on
 * {@code tcp://127.0.0.1:PORT}, with a data directory (the journal, durability SYNC, the default). It starts as a backup;
 * with {@code --zookeeper}, ZooKeeper decides who is primary.
 *
 * <p>Arguments: {@code --name NAME --port PORT --data DIR --group G --brokers URI,URI [--zookeeper HOST:PORT
 * --session-timeout-ms MS]}. Prints {@code READY tcp://127.0.0.1:PORT} once started. Commands:
 * <ul>
 *   <li>{@code status}: {@code STATUS role=primary|backup state=joining|catchup|ready|recovering|active epoch=N};</li>
 *   <li>{@code promote}: promotes this member as a resource manager would once it saw the primary's process die:
 *       {@link HaMember#promote} without force, tried again every millisecond while the member still follows the
 *       primary (its replication link has not noticed the death yet), then waits until it serves clients; answers
 *       {@code PROMOTED refusedMillis=T}, the time the promotion was refused for;</li>
 *   <li>{@code promote force}: the same with force (how the benchmark makes the first primary of a new group);</li>
 *   <li>{@code sample}: {@code SAMPLE heap=BYTES fds=N threads=N disk=BYTES} ({@link ProcessSample}; the soak's).</li>
 * </ul>
 * Runs until its stdin closes.
 */
public final class HaMemberMain {

    private HaMemberMain() {
    }

    public static void main(String[] args) {
        String name = "bench";
        int port = 0;
        Path data = null;
        String group = "bench";
        String brokers = null;
        String zookeeper = null;
        Duration session = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--port" -> port = Integer.parseInt(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                case "--group" -> group = args[++i];
                case "--brokers" -> brokers = args[++i];
                case "--zookeeper" -> zookeeper = args[++i];
                case "--session-timeout-ms" -> session = Duration.ofMillis(Long.parseLong(args[++i]));
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --port, --data, --group, --brokers,"
                            + " --zookeeper, --session-timeout-ms");
                    System.exit(2);
                }
            }
        }
        if (port <= 0 || data == null || brokers == null) {
            System.out.println("ERROR --port, --data and --brokers are required");
            System.exit(2);
        }
        String g = group;
        String b = brokers;
        String zk = zookeeper;
        Duration s = session;
        Path dataDirectory = data;
        BrokerConfig config = BrokerConfig.builder(name).listen("tcp://127.0.0.1:" + port).dataDirectory(data)
                .ha(h -> h.group(g).brokers(b).zookeeper(zk).zookeeperSessionTimeout(s)).build();
        HaMember member = HaMember.start(config);
        Runtime.getRuntime().addShutdownHook(new Thread(member::close, "fedbridge-bench-ha-stop"));
        ChildProtocol.ready(member.uri());
        ChildProtocol.serve(command -> switch (command) {
            case "status" -> "STATUS role=" + member.role().label() + " state=" + member.state().label() + " epoch=" + member.epoch();
            case "promote" -> promote(member, false);
            case "promote force" -> promote(member, true);
            case "sample" -> ProcessSample.take(dataDirectory).line();
            default -> "ERROR unknown command '" + command + "'";
        });
        member.close();
        System.exit(0);
    }

    private static String promote(HaMember member, boolean force) {
        long start = System.nanoTime();
        long deadline = start + Duration.ofSeconds(30).toNanos();
        while (true) {
            try {
                member.promote(force);
                break;
            } catch (IllegalStateException e) {
                if (System.nanoTime() > deadline || member.role() == HaRole.PRIMARY) {
                    return "ERROR promote: " + e.getMessage();
                }
                LockSupport.parkNanos(1_000_000); // the replication link is about to see the primary's death
            }
        }
        long refused = System.nanoTime() - start;
        if (!member.awaitPrimary(Duration.ofSeconds(30))) {
            return "ERROR promote: not primary 30 s after the promotion";
        }
        return "PROMOTED refusedMillis=" + String.format(java.util.Locale.ROOT, "%.1f", refused / 1e6);
    }
}
