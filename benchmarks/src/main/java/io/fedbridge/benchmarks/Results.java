package io.fedbridge.benchmarks;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** What the client child reports, parsed from its {@code RESULT key=value …} lines. */
final class Results {

    private Results() {
    }

    /**
     * One throughput run: N messages, first send → last receive; CPU time the broker and client JVMs used
     * during the run (-1 if unknown).
     */
    record ThroughputRun(long sent, long received, long stray, long elapsedNanos, long sendNanos,
                         long brokerCpuNanos, long clientCpuNanos, double otherCores) {

        static ThroughputRun parse(String line) {
            Map<String, String> kv = keyValues(line);
            return new ThroughputRun(num(kv, "sent"), num(kv, "received"), num(kv, "stray"),
                    num(kv, "elapsedNanos"), num(kv, "sendNanos"), -1, -1, Double.NaN);
        }

        /** Adds what the parent measured: CPU of the broker and client JVMs, CPU of everything else. */
        ThroughputRun withCpu(long brokerNanos, long clientNanos, double others) {
            return new ThroughputRun(sent, received, stray, elapsedNanos, sendNanos, brokerNanos, clientNanos, others);
        }

        /** Broker CPU microseconds per message; NaN if unknown. */
        double brokerMicrosPerMessage() {
            return brokerCpuNanos < 0 ? Double.NaN : brokerCpuNanos / 1e3 / sent;
        }

        double clientMicrosPerMessage() {
            return clientCpuNanos < 0 ? Double.NaN : clientCpuNanos / 1e3 / sent;
        }

        boolean allArrived() {
            return received == sent;
        }

        double msgsPerSecond() {
            return sent * 1e9 / elapsedNanos;
        }
    }

    /** One fixed-rate run; latencies in nanoseconds; other processes' CPU use during the run, in cores. */
    record LatencyRun(long sent, long received, long measured, long p50, long p90, long p99, long p999, long max,
                      long achievedRate, long lateSends, boolean complete, double otherCores) {

        static LatencyRun parse(String line) {
            Map<String, String> kv = keyValues(line);
            return new LatencyRun(num(kv, "sent"), num(kv, "received"), num(kv, "measured"), num(kv, "p50"),
                    num(kv, "p90"), num(kv, "p99"), num(kv, "p999"), num(kv, "max"), num(kv, "rate"),
                    num(kv, "lateSends"), Boolean.parseBoolean(kv.get("complete")), Double.NaN);
        }

        LatencyRun withOtherCores(double others) {
            return new LatencyRun(sent, received, measured, p50, p90, p99, p999, max, achievedRate, lateSends, complete, others);
        }

        boolean allArrived() {
            return complete && received == sent;
        }
    }

    static Map<String, String> keyValues(String line) {
        Map<String, String> kv = new HashMap<>();
        for (String token : line.trim().split("\\s+")) {
            int eq = token.indexOf('=');
            if (eq > 0) {
                kv.put(token.substring(0, eq), token.substring(eq + 1));
            }
        }
        return kv;
    }

    private static long num(Map<String, String> kv, String key) {
        String v = kv.get(key);
        if (v == null) {
            throw new BenchmarkException("result line lacks '" + key + "': " + kv);
        }
        return Long.parseLong(v);
    }

    /** The median (mean of the middle two for an even count); NaN for none. */
    static <T> double median(List<T> runs, ToDoubleFunction<T> value) {
        if (runs.isEmpty()) {
            return Double.NaN;
        }
        double[] v = runs.stream().mapToDouble(value).toArray();
        Arrays.sort(v);
        int n = v.length;
        return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    }
}
