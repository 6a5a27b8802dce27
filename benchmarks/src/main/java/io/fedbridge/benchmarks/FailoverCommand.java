package io.fedbridge.benchmarks;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Client failover after {@code kill -9}: two brokers A and B (each a child JVM, not bridged), one client JVM
 * ({@link FailoverClientMain}) with a producer and a consumer on {@code failover:(A,B)?randomize=false&initialReconnectDelay=10},
 * so both are connected to A; non-persistent messages at a fixed rate on one queue. The benchmark SIGKILLs A, tells the
 * client, and the client measures the time from then to the first message sent after the kill and received.
 * Each round uses a fresh pair of brokers; rounds alternate between fedbridge and ActiveMQ Classic (OpenWire failover
 * transport).
 */
@Command(name = "failover", mixinStandardHelpOptions = true, sortOptions = false,
        description = {"Client failover: time from kill -9 of the connected broker to the first message sent and received",
                "after it; fedbridge's FailoverClient vs ActiveMQ Classic's failover transport."})
public final class FailoverCommand implements Callable<Integer> {

    @Option(names = "--rounds", description = "kills per product, each on a fresh broker pair (default ${DEFAULT-VALUE}).")
    int rounds = 5;

    @Option(names = "--rate", description = "msg/s sent by the client (default ${DEFAULT-VALUE}).")
    int rate = 1000;

    @Option(names = "--settle-seconds", description = "traffic before the kill, s (default ${DEFAULT-VALUE}).")
    int settleSeconds = 3;

    @Option(names = "--jvm-args", description = "options of every child JVM (default ${DEFAULT-VALUE}).")
    String jvmArgs = "-Xms512m -Xmx512m";

    @Option(names = "--log-dir", description = "child JVM logs (default: a new temporary directory).")
    Path logDir;

    @Option(names = "--classpath", description = "class path of the child JVMs (default: this JVM's).")
    String classPath = System.getProperty("java.class.path");

    private static final String FEDBRIDGE = "fedbridge";
    private static final String ACTIVEMQ = "activemq";

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        PrintStream progress = System.err;
        Path logs = logDir != null ? Files.createDirectories(logDir) : Files.createTempDirectory("fedbridge-bench-failover-");
        List<String> jvm = Arrays.stream(jvmArgs.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
        Map<String, List<Double>> results = new LinkedHashMap<>();
        results.put(FEDBRIDGE, new ArrayList<>());
        results.put(ACTIVEMQ, new ArrayList<>());
        int failures = 0;
        for (int r = 1; r <= rounds; r++) {
            for (String product : results.keySet()) {
                try {
                    double ms = round(product, r, jvm, logs);
                    results.get(product).add(ms);
                    progress.printf(Locale.ROOT, "[%s] round %d/%d: first message after kill -9 in %.1f ms%n", product, r, rounds, ms);
                } catch (BenchmarkException | NumberFormatException e) {
                    failures++;
                    progress.printf("[%s] round %d FAILED: %s%n", product, r, e.getMessage());
                }
            }
        }
        List<Double> f = results.get(FEDBRIDGE);
        List<Double> a = results.get(ACTIVEMQ);
        out.println();
        out.println("Failover after kill -9 of the connected broker (" + rounds + " rounds per product, " + rate
                + " msg/s non-persistent, producer and consumer in one client JVM, fresh broker pair per round; logs in " + logs + ")");
        out.println("fedbridge: FailoverClient, failover:(tcp://A,tcp://B)?randomize=false&initialReconnectDelay=10");
        out.println("ActiveMQ: " + Target.ACTIVEMQ.title + " embedded (non-persistent, JMX and advisories off), OpenWire"
                + " failover:(tcp://A,tcp://B)?randomize=false&initialReconnectDelay=10");
        out.println("time = from the client reading KILLED (sent by the parent right after SIGKILL) to the first received message"
                + " sent after that instant");
        out.println();
        out.println("| scenario | fedbridge | " + Target.ACTIVEMQ.title + " |");
        out.println("|---|---|---|");
        out.println("| failover after kill -9, p50 ms | " + fmt(f, 50) + " | " + fmt(a, 50) + " |");
        out.println("| failover after kill -9, p99 ms | " + fmt(f, 99) + " | " + fmt(a, 99) + " |");
        out.println("| failover after kill -9, max ms | " + fmt(f, 100) + " | " + fmt(a, 100) + " |");
        out.println("| rounds ok | " + f.size() + "/" + rounds + " | " + a.size() + "/" + rounds + " |");
        out.println();
        out.println("samples fedbridge " + f + " ms; ActiveMQ " + a + " ms");
        return failures == 0 ? 0 : 1;
    }

    private double round(String product, int r, List<String> jvm, Path logs) throws Exception {
        List<ChildJvm> all = new ArrayList<>();
        try {
            Class<?> brokerMain = product.equals(FEDBRIDGE) ? FedbridgeBrokerMain.class : ActiveMqBrokerMain.class;
            List<String> extra = product.equals(FEDBRIDGE) ? List.of() : List.of("--openwire");
            ChildJvm a = ChildJvm.start(product + "-r" + r + "-broker-A", jvm, classPath, brokerMain,
                    concat(List.of("--name", "A"), extra), logs);
            all.add(a);
            ChildJvm b = ChildJvm.start(product + "-r" + r + "-broker-B", jvm, classPath, brokerMain,
                    concat(List.of("--name", "B"), extra), logs);
            all.add(b);
            String uriA = address(product, a.awaitLine("READY ", Duration.ofSeconds(60)));
            String uriB = address(product, b.awaitLine("READY ", Duration.ofSeconds(60)));
            String failover = "failover:(" + uriA + "," + uriB + ")?randomize=false&initialReconnectDelay=10";
            ChildJvm client = ChildJvm.start(product + "-r" + r + "-client", jvm, classPath, FailoverClientMain.class,
                    List.of(product, failover, Integer.toString(rate)), logs);
            all.add(0, client);
            client.awaitLine("READY ", Duration.ofSeconds(90));
            Thread.sleep(settleSeconds * 1000L);
            ProcessHandle victim = ProcessHandle.of(a.pid())
                    .orElseThrow(() -> new BenchmarkException("broker A exited before the kill; see " + a.log()));
            victim.destroyForcibly(); // SIGKILL
            client.send("KILLED");
            String ms = client.awaitLine("FIRST_AFTER ", Duration.ofSeconds(60));
            return Double.parseDouble(ms);
        } finally {
            for (ChildJvm c : all) {
                c.close();
            }
        }
    }

    /** The address the client connects to: fedbridge's STOMP listener, ActiveMQ's OpenWire connector. */
    private static String address(String product, String ready) {
        String[] parts = ready.split("\\s+");
        if (product.equals(FEDBRIDGE)) {
            return parts[0];
        }
        for (String p : parts) {
            if (p.startsWith("openwire=")) {
                return p.substring("openwire=".length());
            }
        }
        throw new BenchmarkException("ActiveMQ broker announced no OpenWire connector: " + ready);
    }

    private static List<String> concat(List<String> x, List<String> y) {
        List<String> l = new ArrayList<>(x);
        l.addAll(y);
        return l;
    }

    /** Nearest-rank percentile. */
    private static String fmt(List<Double> samples, int pct) {
        if (samples.isEmpty()) {
            return "n/a";
        }
        List<Double> s = new ArrayList<>(samples);
        s.sort(null);
        int idx = (int) Math.ceil(pct / 100.0 * s.size()) - 1;
        return String.format(Locale.ROOT, "%.1f", s.get(Math.max(0, Math.min(idx, s.size() - 1))));
    }
}
