package io.fedbridge.metrics.integration;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import io.fedbridge.metrics.MetricsEndpoint;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/** Shared base of the metrics module's integration tests: in-JVM brokers, HTTP requests, a Prometheus text parser. */
abstract class MetricsTestSupport {

    protected static final Duration WAIT = Duration.ofSeconds(15);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    protected final List<AutoCloseable> resources = new ArrayList<>();

    /** Starts a broker with its metrics listener on a free loopback port; it closes with the test. */
    protected Broker startBroker(BrokerConfig.Builder builder) {
        Broker b = Broker.start(builder.build());
        resources.add(0, b);
        return b;
    }

    protected static URI endpoint(Broker broker, String path) {
        return broker.extension(MetricsEndpoint.class).uri().resolve(path);
    }

    protected StompConnection connect(Broker broker) {
        StompConnection c = StompConnection.connect(ClientConfig.builder(broker.vmUri()).heartBeats(Duration.ZERO).build());
        resources.add(0, c);
        return c;
    }

    protected static HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    protected static HttpResponse<String> request(URI uri, String method) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** One sample of a scrape: metric name (with _total, _bucket… as exposed), labels, value. */
    protected record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final String PARSER = String.join("\n",
            "import sys",
            "from prometheus_client.parser import text_string_to_metric_families",
            "for family in text_string_to_metric_families(sys.stdin.read()):",
            "    for s in family.samples:",
            "        labels = '\\x1f'.join(k + '=' + v for k, v in sorted(s.labels.items()))",
            "        print(s.name + '\\t' + labels + '\\t' + repr(float(s.value)))");

    /**
     * Parses a scrape with the Prometheus Python client's exposition-format parser (Debian's
     * python3-prometheus-client, installed by .ci/run): any line it rejects fails the test.
     */
    protected static List<Sample> parse(String text) throws IOException, InterruptedException {
        assumeTrue(pythonParserAvailable(), "python3 with prometheus_client is not installed (.ci/run installs "
                + "Debian's python3-prometheus-client)");
        Process p = new ProcessBuilder(PYTHON, "-c", PARSER).redirectErrorStream(false).start();
        try (var in = p.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new AssertionError("the Prometheus parser rejected the scrape: " + err + "\n--- scrape:\n" + text);
        }
        List<Sample> samples = new ArrayList<>();
        for (String line : out.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            String[] f = line.split("\t", -1);
            Map<String, String> labels = new LinkedHashMap<>();
            if (!f[1].isEmpty()) {
                for (String kv : f[1].split("\u001f")) {
                    int eq = kv.indexOf('=');
                    labels.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
            samples.add(new Sample(f[0], labels, Double.parseDouble(f[2])));
        }
        return samples;
    }

    /** Debian's python, which sees Debian's python3-prometheus-client (a python3 first on the PATH may not). */
    private static final String PYTHON = java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/bin/python3"))
            ? "/usr/bin/python3" : "python3";
    private static Boolean pythonAvailable;

    private static synchronized boolean pythonParserAvailable() {
        if (pythonAvailable == null) {
            try {
                Process p = new ProcessBuilder(PYTHON, "-c", "import prometheus_client.parser").redirectErrorStream(true).start();
                p.getInputStream().readAllBytes();
                pythonAvailable = p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
            } catch (IOException | InterruptedException e) {
                pythonAvailable = false;
            }
        }
        return pythonAvailable;
    }

    /** The value of the one sample named {@code name} whose labels include {@code labels} (k1, v1, k2, v2…); NaN if none. */
    protected static double value(List<Sample> samples, String name, String... labels) {
        double found = Double.NaN;
        for (Sample s : samples) {
            if (!s.name().equals(name)) {
                continue;
            }
            boolean match = true;
            for (int i = 0; i < labels.length; i += 2) {
                match &= labels[i + 1].equals(s.labels().get(labels[i]));
            }
            if (match) {
                if (!Double.isNaN(found)) {
                    throw new AssertionError("more than one sample " + name + " with " + List.of(labels));
                }
                found = s.value();
            }
        }
        return found;
    }

    protected double scrape(Broker broker, String name, String... labels) throws Exception {
        return value(parse(get(endpoint(broker, "/metrics")).body()), name, labels);
    }

    @AfterEach
    void closeResources() {
        for (AutoCloseable c : resources) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed by the test
            }
        }
        resources.clear();
    }
}
