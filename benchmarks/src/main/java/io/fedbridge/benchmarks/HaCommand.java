package io.fedbridge.benchmarks;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Ratio;
import io.fedbridge.benchmarks.ScenarioReport.Sample;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Predicate;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * High availability: a fedbridge HA group of two members (a primary and one READY backup, each in its own JVM) side
 * by side with the same fedbridge broker unreplicated and with an Apache ActiveMQ Artemis primary/backup pair with the
 * replication HA policy, every broker persistent with a fresh data directory, the same load client for all.
 *
 * <ul>
 *   <li>{@code throughput}: persistent 1 KiB messages, one producer with up to {@code --window} receipts
 *       outstanding, one consumer on the primary; msg/s, and CPU per message of the primary and the backup JVM.</li>
 *   <li>{@code latency}: persistent, a fixed {@code --rate}; send → receipt (what replication delays: the primary
 *       receipts once every READY backup stored the message) and send → receive.</li>
 *   <li>{@code failover}: {@code kill -9} of the primary under a persistent load at {@code --rate} from a failover
 *       client (producer and consumer on {@code failover:(member1,member2)}) → the first message sent after the kill
 *       and delivered, by the new primary. Each round on a fresh pair; fedbridge promotes through ZooKeeper (its
 *       lease outlives the dead primary by the session timeout) and by hand (this harness promotes the backup as
 *       soon as it sees the primary's process die, as a resource manager would); Artemis' backup activates on its
 *       own.</li>
 * </ul>
 */
@Command(name = "ha", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"High availability: replicated persistent throughput and fixed-rate latency (fedbridge HA pair vs the same",
                "broker unreplicated vs an Artemis replicated pair), and failover after kill -9 of the primary."})
public final class HaCommand extends ComparisonCommand {

    static final String QUEUE = "/queue/bench";
    private static final List<String> ALL = List.of("throughput", "latency", "failover");

    @Option(names = "--messages", description = "Messages per throughput run (default ${DEFAULT-VALUE}).")
    int messages = 50_000;

    @Option(names = "--window", description = "Receipts outstanding in the throughput scenario (default ${DEFAULT-VALUE}).")
    int window = 200;

    @Option(names = "--rate", description = "Messages/s of the latency scenario (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--failover-rate", description = {"Messages/s of the failover load (default ${DEFAULT-VALUE}): low enough that",
            "the consumer has no backlog on a busy machine, so the time measured is the failover's, not a backlog's drain."})
    int failoverRate = 100;

    @Option(names = "--latency-seconds", description = "Recorded seconds per latency run (default ${DEFAULT-VALUE}).")
    int latencySeconds = 20;

    @Option(names = "--preroll-seconds", description = "Unrecorded seconds at the same rate before each latency run (default ${DEFAULT-VALUE}).")
    int prerollSeconds = 1;

    @Option(names = "--latency-warmup-seconds", description = "Unrecorded seconds at the rate before the latency runs (default ${DEFAULT-VALUE}).")
    int latencyWarmupSeconds = 10;

    @Option(names = "--rounds", description = "Failover rounds (kills) per product and mode, each on a fresh pair (default ${DEFAULT-VALUE}).")
    int rounds = 5;

    @Option(names = "--settle-seconds", description = "Failover: seconds of load before the kill (default ${DEFAULT-VALUE}).")
    int settleSeconds = 3;

    @Option(names = "--zk-tick-ms", description = {"tickTime of the benchmark's ZooKeeper server (default ${DEFAULT-VALUE}, ZooKeeper's",
            "sample configuration); it grants session timeouts of 2 to 20 ticks."})
    int zkTickMillis = 2000;

    @Option(names = "--zk-session-timeout-ms", description = {"ha.zookeeperSessionTimeout of the members (default ${DEFAULT-VALUE}, the",
            "recommended value: the shortest ZooKeeper grants with a 2 s tick). Failover after kill -9 takes at least this long."})
    int zkSessionMillis = 4000;

    @Option(names = "--scenarios", split = ",", description = "Any of throughput, latency, failover (default ${DEFAULT-VALUE}).")
    List<String> scenarios = ALL;

    private static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);
    private static final Metric PRIMARY_CPU = new Metric("primary_us", "primary us/msg", Unit.MICROS, false);
    private static final Metric BACKUP_CPU = new Metric("backup_us", "backup us/msg", Unit.MICROS, false);
    private static final Metric RECEIPT_P50 = new Metric("receipt_p50", "receipt p50 ms", Unit.MILLIS, false);
    private static final Metric RECEIPT_P99 = new Metric("receipt_p99", "receipt p99 ms", Unit.MILLIS, false);
    private static final Metric RECEIPT_P999 = new Metric("receipt_p999", "receipt p99.9 ms", Unit.MILLIS, false);
    private static final Metric P50 = new Metric("p50", "e2e p50 ms", Unit.MILLIS, false);
    private static final Metric P99 = new Metric("p99", "e2e p99 ms", Unit.MILLIS, false);
    private static final Metric RATE = new Metric("rate", "rate/s", Unit.RATE, true);

    /** Failover samples (ms) per mode, in round order; failures are reported as failures of the target. */
    private final Map<String, List<Double>> failovers = new LinkedHashMap<>();
    /** Per mode and round: messages the failover client received twice. */
    private final Map<String, List<Long>> redelivered = new LinkedHashMap<>();

    public HaCommand() {
        targets = List.of("fedbridge-ha", "fedbridge", "artemis-ha");
    }

    @Override
    protected String name() {
        return "ha";
    }

    @Override
    protected void validateOptions() {
        if (messages < 1 || window < 1 || rate < 1 || failoverRate < 1 || latencySeconds < 1 || prerollSeconds < 0 || latencyWarmupSeconds < 0
                || rounds < 1 || settleSeconds < 0 || zkTickMillis < 1 || zkSessionMillis < 1000
                || scenarios.isEmpty() || !ALL.containsAll(scenarios)) {
            throw new CommandLine.ParameterException(spec.commandLine(), "messages, window, rate, failover-rate, latency-seconds, rounds and"
                    + " zk-tick-ms must be >= 1, preroll-seconds, latency-warmup-seconds and settle-seconds >= 0,"
                    + " zk-session-timeout-ms >= 1000, scenarios any of " + ALL + ", but scenarios were " + scenarios);
        }
    }

    private boolean has(Target t) {
        return targets.stream().map(Target::of).anyMatch(t::equals);
    }

    @Override
    protected void describe(List<Target> ts) {
        report.setup("message", size + "-byte body, persistent, queue " + QUEUE + ", producer and one consumer connection on the"
                + " primary (ack=auto, prefetch " + prefetch + "); fedbridge's StompConnection for every target");
        report.setup("fedbridge HA", "HaMember x2 (manual promotion of member 1, measured once member 2 is READY), each with a"
                + " data directory (journal, durability SYNC: primary and backup sync before they answer), tcp://127.0.0.1:PORT");
        report.setup("fedbridge", "the same broker unreplicated: Broker.start with a data directory (durability SYNC)");
        report.setup("Artemis HA", Target.ARTEMIS_HA.title + " embedded: primary with ReplicatedPolicyConfiguration, backup"
                + " with ReplicaPolicyConfiguration, cluster connection over loopback (core acceptors), STOMP acceptor with"
                + " anycastPrefix=/queue/, persistent with Artemis' default journal settings (datasync on); measured once the"
                + " backup is in sync; its consumer without activemq.prefetchSize (Artemis reads it as a byte window that ack=auto"
                + " never refills; without it, no flow control)");
        report.markdownColumns(ts, List.of(new Ratio(Target.FEDBRIDGE_HA, Target.FEDBRIDGE, "HA / unreplicated"),
                new Ratio(Target.FEDBRIDGE_HA, Target.ARTEMIS_HA, "fedbridge HA / Artemis HA")));
        if (scenarios.contains("throughput")) {
            report.scenario(new Scenario("throughput", String.format(Locale.ROOT, "Persistent, 1 producer, up to %d receipts"
                    + " outstanding, %,d msgs", window, messages), "persistent, " + window + " sends in flight, one backup", MSGS,
                    List.of(PRIMARY_CPU, BACKUP_CPU), List.of(MSGS), true));
            report.aim(new Aim("replicated throughput >= 50% of the same broker unreplicated", "throughput", MSGS.key(), 0.5, false,
                    Target.FEDBRIDGE_HA, Target.FEDBRIDGE));
            report.aim(new Aim("replicated throughput >= 2x Artemis' replicated pair", "throughput", MSGS.key(), 2, false,
                    Target.FEDBRIDGE_HA, Target.ARTEMIS_HA));
        }
        if (scenarios.contains("latency")) {
            report.setup("latency", String.format(Locale.ROOT, "%d s recorded per run after %d s unrecorded; before the runs every"
                    + " target runs %d s at %,d msg/s, unrecorded; receipt = send -> RECEIPT, e2e = send -> receive",
                    latencySeconds, prerollSeconds, latencyWarmupSeconds, rate));
            report.scenario(new Scenario("latency", String.format(Locale.ROOT, "Persistent @ %,d msg/s, receipts requested (not"
                    + " awaited before the next send)", rate), String.format(Locale.ROOT, "persistent @ %,d msg/s", rate),
                    RECEIPT_P99, List.of(RECEIPT_P50, RECEIPT_P999, P50, P99, RATE), List.of(RECEIPT_P50, RECEIPT_P99, P99), true));
            report.aim(new Aim(String.format(Locale.ROOT, "send -> receipt p99 at %,d msg/s, lower than Artemis' replicated pair",
                    rate), "latency", RECEIPT_P99.key(), 1, false, Target.FEDBRIDGE_HA, Target.ARTEMIS_HA));
        }
        report.note("(msg/s = messages / first send -> last receive; brokers us/msg = CPU of both JVMs of a pair together per"
                + " message, primary/backup us/msg each JVM's)");
        report.footnote(footnote(size + " B persistent messages, one queue, producer and consumer on the primary; fedbridge HA"
                + " pair vs the same broker unreplicated vs " + Target.ARTEMIS_HA.title));
    }

    @Override
    protected void execute(List<Target> ts) throws IOException {
        if (scenarios.contains("throughput") || scenarios.contains("latency")) {
            for (Target t : ts) {
                try {
                    Topology topo = startPair(t, "bench", null, true);
                    register(topo);
                    ChildJvm client = startClient(t, topo.ready().get(0).get("uri"), topo.ready().get(0).get("uri"), QUEUE, 1);
                    register(new Topology(t, topo.brokers(), topo.ready(), client));
                    progress.printf("[%s] brokers %s, client pid %d%n", t, topo.brokers(), client.pid());
                } catch (BenchmarkException e) {
                    fail(t, "start", e);
                }
            }
            onEveryLiveTarget(ts, "warm-up", topo -> warmUp(topo, "window " + Math.min(messages, 10_000) + " " + window + " 1 true"));
            if (scenarios.contains("throughput")) {
                runInterleaved(ts, "throughput", topo -> measurePerBroker(topo, "window " + messages + " " + window + " 1 true",
                        kv -> Map.of(MSGS.key(), rate(kv, "messages"))));
            }
            if (scenarios.contains("latency")) {
                if (latencyWarmupSeconds > 0) {
                    onEveryLiveTarget(ts, "latency warm-up", topo -> warmUpOnce(topo, "latency " + rate + " 1 " + latencyWarmupSeconds
                            + " true"));
                }
                runInterleaved(ts, "latency", topo -> measurePerBroker(topo, "latency " + rate + " " + latencySeconds + " "
                        + prerollSeconds + " true", HaCommand::latencies));
            }
            for (Target t : ts) {
                stop(t);
            }
        }
        if (scenarios.contains("failover")) {
            failover(ts);
        }
    }

    private static Map<String, Double> latencies(Map<String, String> kv) {
        Map<String, Double> m = new HashMap<>();
        for (Metric x : List.of(RECEIPT_P50, RECEIPT_P99, RECEIPT_P999, P50, P99)) {
            m.put(x.key(), millis(kv, x.key()));
        }
        m.put(RATE.key(), Double.parseDouble(kv.get("rate")));
        return m;
    }

    /** {@link #measure} plus the CPU per message of the primary and (for a pair) the backup JVM, each on its own. */
    private Sample measurePerBroker(Topology topo, String command, java.util.function.Function<Map<String, String>, Map<String, Double>> metrics) {
        List<ChildJvm> bs = topo.brokers();
        long[] before = bs.stream().mapToLong(ChildJvm::cpuNanos).toArray();
        long[] messagesSent = new long[1];
        Sample s = measure(topo, command, kv -> {
            messagesSent[0] = Long.parseLong(kv.get("messages"));
            return metrics.apply(kv);
        });
        Map<String, Double> values = new HashMap<>(s.values());
        List<Metric> per = List.of(PRIMARY_CPU, BACKUP_CPU);
        for (int i = 0; i < bs.size() && i < per.size(); i++) {
            long now = bs.get(i).cpuNanos();
            values.put(per.get(i).key(), before[i] < 0 || now < 0 ? Double.NaN : (now - before[i]) / 1e3 / messagesSent[0]);
        }
        return new Sample(values, s.expected(), s.received(), s.brokerMicros(), s.clientMicros(), s.others());
    }

    // ---------------------------------------------------------------- pairs

    /** How a pair is started: without ZooKeeper (null) member 1 is promoted by hand. */
    private Topology startPair(Target t, String group, String zookeeper, boolean awaitInSync) throws BenchmarkException {
        try {
            return switch (t) {
                case FEDBRIDGE -> {
                    ChildJvm b = startChild(t, "broker", FedbridgeBrokerMain.class, brokerArgs("bench", dataDir(t.key), List.of()));
                    register(new Topology(t, List.of(b), List.of(), null));
                    yield new Topology(t, List.of(b), List.of(awaitReady(b)), null);
                }
                case FEDBRIDGE_HA -> startFedbridgePair(t, group, zookeeper);
                case ARTEMIS_HA -> startArtemisPair(t, group, awaitInSync);
                default -> throw new BenchmarkException("the ha benchmark cannot start " + t);
            };
        } catch (IOException e) {
            throw new BenchmarkException("could not start " + t + ": " + e, e);
        }
    }

    /** Two members; returns them primary first once the other is READY. */
    private Topology startFedbridgePair(Target t, String group, String zookeeper) throws IOException {
        int[] ports = {freePort(), freePort()};
        String brokers = "tcp://127.0.0.1:" + ports[0] + ",tcp://127.0.0.1:" + ports[1];
        List<ChildJvm> members = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            List<String> args = new ArrayList<>(List.of("--name", group + "-" + (i + 1), "--port", Integer.toString(ports[i]),
                    "--data", dataDir(t.key + "-" + group + "-" + (i + 1)).toString(), "--group", group, "--brokers", brokers));
            if (zookeeper != null) {
                args.addAll(List.of("--zookeeper", zookeeper, "--session-timeout-ms", Integer.toString(zkSessionMillis)));
            }
            members.add(startChild(t, group + "-member" + (i + 1), HaMemberMain.class, args));
            register(new Topology(t, List.copyOf(members), List.of(), null));
        }
        List<Map<String, String>> ready = new ArrayList<>();
        for (ChildJvm m : members) {
            ready.add(awaitReady(m));
        }
        if (zookeeper == null) {
            members.get(0).send("promote force");
            members.get(0).awaitLine("PROMOTED", Duration.ofSeconds(60));
        }
        int primary = awaitStatus(members, s -> s.get("role").equals("primary"), "a primary", Duration.ofSeconds(60));
        int backup = 1 - primary;
        awaitStatus(List.of(members.get(backup)), s -> s.get("state").equals("ready"), "a READY backup", Duration.ofSeconds(60));
        return new Topology(t, List.of(members.get(primary), members.get(backup)), List.of(ready.get(primary), ready.get(backup)), null);
    }

    private Topology startArtemisPair(Target t, String group, boolean awaitInSync) throws IOException {
        int[] stomp = {freePort(), freePort()};
        int[] core = {freePort(), freePort()};
        List<ChildJvm> servers = new ArrayList<>();
        List<Map<String, String>> ready = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            ChildJvm s = startChild(t, group + "-" + (i == 0 ? "primary" : "backup"), ArtemisHaMain.class, List.of("--name",
                    group + "-" + (i + 1), "--role", i == 0 ? "primary" : "backup", "--stomp-port", Integer.toString(stomp[i]),
                    "--core-port", Integer.toString(core[i]), "--peer-core-port", Integer.toString(core[1 - i]), "--data",
                    dataDir(t.key + "-" + group + "-" + (i + 1)).toString()));
            servers.add(s);
            register(new Topology(t, List.copyOf(servers), List.of(), null));
            ready.add(awaitReady(s)); // the primary before the backup starts: it is the one that becomes active
        }
        if (awaitInSync) {
            awaitStatus(List.of(servers.get(0)), s -> s.get("replicaSync").equals("true"), "its backup in sync", Duration.ofSeconds(90));
        }
        return new Topology(t, servers, ready, null);
    }

    /** Polls {@code status} of each child until one satisfies {@code ok}; returns its index. */
    private static int awaitStatus(List<ChildJvm> cs, Predicate<Map<String, String>> ok, String what, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, String> last = Map.of();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < cs.size(); i++) {
                cs.get(i).send("status");
                last = Results.keyValues(cs.get(i).awaitLine("STATUS ", Duration.ofSeconds(30)));
                if (ok.test(last)) {
                    return i;
                }
            }
            pause(50);
        }
        throw new BenchmarkException("no " + what + " among " + cs + " within " + timeout.toSeconds() + " s; last status " + last);
    }

    /** Harness pacing between polls of child processes (not a test waiting for an outcome). */
    static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BenchmarkException("interrupted", e);
        }
    }

    /** A port the OS had free: a group's members must know each other's URIs before they bind. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    // ---------------------------------------------------------------- failover

    private static final String ZK = "fedbridge HA, ZooKeeper";
    private static final String MANUAL = "fedbridge HA, manual";
    private static final String ARTEMIS = "Artemis HA";
    /** The failover client's: the first retry after 10 ms, then at most every 100 ms (not the default's seconds). */
    private static final String FAILOVER_OPTIONS = "randomize=false&initialReconnectDelay=10&maxReconnectDelay=100";

    private void failover(List<Target> ts) throws IOException {
        List<String> modes = new ArrayList<>();
        if (ts.contains(Target.FEDBRIDGE_HA)) {
            modes.add(ZK);
            modes.add(MANUAL);
        }
        if (ts.contains(Target.ARTEMIS_HA)) {
            modes.add(ARTEMIS);
        }
        modes.forEach(m -> {
            failovers.put(m, new ArrayList<>());
            redelivered.put(m, new ArrayList<>());
        });
        ChildJvm zk = null;
        String zookeeper = null;
        try {
            if (modes.contains(ZK)) {
                zk = startChild(Target.FEDBRIDGE_HA, "zookeeper", ZooKeeperMain.class, List.of(Integer.toString(zkTickMillis)));
                zookeeper = awaitReady(zk).get("uri");
                progress.printf("[ha] ZooKeeper pid %d at %s (tickTime %d ms)%n", zk.pid(), zookeeper, zkTickMillis);
            }
            for (int r = 1; r <= rounds; r++) {
                for (String mode : modes) {
                    Target t = mode.equals(ARTEMIS) ? Target.ARTEMIS_HA : Target.FEDBRIDGE_HA;
                    try {
                        double ms = failoverRound(t, mode, "r" + r + (mode.equals(ZK) ? "zk" : ""), mode.equals(ZK) ? zookeeper : null);
                        failovers.get(mode).add(ms);
                        progress.printf(Locale.ROOT, "[%s] failover round %d/%d: first message after kill -9 in %.1f ms%n", mode, r,
                                rounds, ms);
                    } catch (BenchmarkException | NumberFormatException e) {
                        progress.printf("[%s] failover round %d FAILED: %s%n", mode, r, e.getMessage());
                        report.fail(t, "failover (" + mode + ") round " + r + ": " + e.getMessage());
                    } finally {
                        stop(t);
                    }
                }
            }
        } finally {
            if (zk != null) {
                stopChild(zk);
            }
        }
        reportFailover();
    }

    /** One kill: a fresh pair, the failover client's load, SIGKILL of the primary, the first message after it. */
    private double failoverRound(Target t, String mode, String group, String zookeeper) {
        Topology pair = startPair(t, group, zookeeper, true);
        register(pair);
        String uris = pair.ready().get(0).get("uri") + "," + pair.ready().get(1).get("uri");
        if (!mode.equals(ARTEMIS) && pair.brokers().get(0).name().endsWith("member2")) {
            uris = pair.ready().get(1).get("uri") + "," + pair.ready().get(0).get("uri"); // members in ha.brokers order
        }
        String failover = "failover:(" + uris + ")?" + FAILOVER_OPTIONS;
        ChildJvm client = startChild(t, group + "-failover-client", FailoverClientMain.class,
                List.of("fedbridge", failover, Integer.toString(failoverRate), "true"));
        register(new Topology(t, pair.brokers(), pair.ready(), client));
        client.awaitLine("READY ", Duration.ofSeconds(90));
        pause(settleSeconds * 1000L);
        ChildJvm primary = pair.brokers().get(0);
        ChildJvm backup = pair.brokers().get(1);
        ProcessHandle victim = ProcessHandle.of(primary.pid())
                .orElseThrow(() -> new BenchmarkException("the primary exited before the kill; see " + primary.log()));
        victim.destroyForcibly(); // SIGKILL
        client.send("KILLED");
        if (mode.equals(MANUAL)) {
            // The resource manager: promote the backup as soon as the primary's process is gone.
            victim.onExit().join();
            backup.send("promote");
            String promoted = backup.awaitLine("PROMOTED", Duration.ofSeconds(60));
            progress.printf("[%s] promoted the backup (%s)%n", mode, promoted);
        }
        double ms = Double.parseDouble(client.awaitLine("FIRST_AFTER ", Duration.ofSeconds(60)));
        pause(1000); // what was delivered before the kill and comes again arrives before the first new message, and soon after
        client.send("count");
        Map<String, String> count = Results.keyValues(client.awaitLine("COUNT ", Duration.ofSeconds(30)));
        redelivered.get(mode).add(Long.parseLong(count.get("duplicates")));
        return ms;
    }

    private void reportFailover() {
        List<String> lines = new ArrayList<>();
        lines.add(String.format(Locale.ROOT, "kill -9 of the primary -> first message sent after the kill and delivered (by the new"
                + " primary); %d rounds per mode, a fresh pair each; persistent load at %,d msg/s from FailoverClient (producer and"
                + " consumer on failover:(member1,member2)?%s)", rounds, failoverRate, FAILOVER_OPTIONS));
        lines.add(String.format(Locale.ROOT, "ZooKeeper: one server, tickTime %d ms, ha.zookeeperSessionTimeout %d ms (the dead"
                + " primary's lease lasts until its session expires); manual: the harness sends promote to the backup once"
                + " the primary's process has exited", zkTickMillis, zkSessionMillis));
        lines.add(String.format(Locale.ROOT, "%-26s %10s %10s %10s  %-40s %s", "mode", "p50 ms", "max ms", "rounds ok", "samples ms",
                "received twice per round (ack=auto)"));
        failovers.forEach((mode, l) -> lines.add(String.format(Locale.ROOT, "%-26s %10s %10s %10s  %-40s %s", mode, Report.ms(p50(l)),
                Report.ms(max(l)), l.size() + "/" + rounds, l.stream().map(Report::ms).toList(), redelivered.get(mode))));
        report.section("Failover after kill -9 of the primary", lines);
        List<Double> artemis = failovers.getOrDefault(ARTEMIS, List.of());
        for (String mode : List.of(MANUAL, ZK)) {
            List<Double> l = failovers.get(mode);
            if (l == null) {
                continue;
            }
            String name = mode.equals(ZK) ? String.format(Locale.ROOT, "failover kill -9 -> first message, ZooKeeper (session %.0f s),"
                    + " p50 / max ms", zkSessionMillis / 1000.0) : "failover kill -9 -> first message, promotion on process exit,"
                    + " p50 / max ms";
            StringBuilder row = new StringBuilder("| " + name + " |");
            for (Target t : List.of(Target.FEDBRIDGE_HA, Target.FEDBRIDGE, Target.ARTEMIS_HA)) {
                if (!targets.stream().map(Target::of).toList().contains(t)) {
                    continue;
                }
                row.append(' ').append(t == Target.FEDBRIDGE_HA ? pair(l) : t == Target.ARTEMIS_HA ? pair(artemis) : "–").append(" |");
            }
            row.append(" – | ").append(Report.times(p50(l) / p50(artemis))).append(" / ").append(Report.times(max(l) / max(artemis)))
                    .append(" |");
            report.markdownRow(row.toString());
        }
        for (String mode : List.of(ZK, MANUAL)) {
            if (failovers.containsKey(mode) && !artemis.isEmpty()) {
                report.note(String.format(Locale.ROOT, "failover, %s: p50 %s ms against Artemis' %s ms: %s", mode,
                        Report.ms(p50(failovers.get(mode))), Report.ms(p50(artemis)),
                        p50(failovers.get(mode)) < p50(artemis) ? "lower than Artemis" : "NOT lower than Artemis"));
            }
        }
    }

    private static String pair(List<Double> l) {
        return Report.ms(p50(l)) + " / " + Report.ms(max(l));
    }

    private static double p50(List<Double> l) {
        return Results.median(l, Double::doubleValue);
    }

    private static double max(List<Double> l) {
        return l.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }
}
