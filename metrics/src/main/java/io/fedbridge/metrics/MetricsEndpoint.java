package io.fedbridge.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.fedbridge.broker.Broker;
import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.core.uri.UriOptions;
import io.fedbridge.metrics.internal.ConsoleState;
import io.fedbridge.metrics.internal.Readiness;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker's HTTP listener for operators: {@code GET /metrics} (Prometheus text format), {@code GET /healthz}
 * (alive), {@code GET /readyz} (ready for traffic) and the read-only web console at {@code GET /} (with its data at
 * {@code GET /api/state}). Started by the broker itself for {@code metrics = http://HOST:PORT} (see
 * {@link io.fedbridge.broker.BrokerConfig#metrics()}), or by an embedder:
 *
 * <pre>{@code
 * MetricsEndpoint endpoint = MetricsEndpoint.start(broker, "http://127.0.0.1:0?linkGrace=10s");
 * URI scrape = endpoint.uri().resolve("/metrics");
 * }</pre>
 *
 * URI options: {@code linkGrace} (default 30 s): how long a configured link may be down (or still connecting) before
 * {@code /readyz} says the broker is not ready.
 *
 * <p>Served by the JDK's {@code com.sun.net.httpserver} on one daemon thread of its own, not on the broker's event
 * loops: a scrape renders every queue's and link's meters, which may take milliseconds on a busy broker, and must
 * never hold up message I/O; a few requests a minute need nothing more. Thread-safe.
 */
public final class MetricsEndpoint implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);
    /** How long a configured link may be down before the broker is not ready, unless {@code linkGrace} says otherwise. */
    public static final Duration DEFAULT_LINK_GRACE = Duration.ofSeconds(30);
    private static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String JSON = "application/json; charset=utf-8";
    private static final Map<String, String> CONSOLE_FILES = Map.of("/", "console.html", "/console.js", "console.js",
            "/console.css", "console.css");

    private final Broker broker;
    private final PrometheusMeterRegistry registry;
    private final BrokerMetrics metrics;
    private final List<AutoCloseable> binders;
    private final HttpServer server;
    private final ScheduledExecutorService thread;
    private final ConsoleState console;
    private final Readiness readiness;
    private final URI uri;

    private MetricsEndpoint(Broker broker, CompositeUri listen, Duration linkGrace, PrometheusMeterRegistry registry,
                            boolean jvm) throws IOException {
        this.broker = broker;
        this.registry = registry;
        this.server = HttpServer.create(new InetSocketAddress(listen.host(), listen.port()), 16);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + broker.name() + "-metrics");
            t.setDaemon(true);
            return t;
        });
        this.binders = jvm ? bindJvm(registry) : List.of();
        this.metrics = BrokerMetrics.bind(broker, registry);
        this.readiness = new Readiness(broker, linkGrace);
        this.console = new ConsoleState(metrics, readiness);
        server.setExecutor(thread);
        server.createContext("/", this::handle);
        server.start();
        InetSocketAddress bound = server.getAddress();
        String host = bound.getAddress().isAnyLocalAddress() ? "127.0.0.1" : bound.getAddress().getHostAddress();
        uri = URI.create("http://" + (host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort() + "/");
        console.sample();
        thread.scheduleWithFixedDelay(this::sampleQuietly, 1, 1, TimeUnit.SECONDS);
        LOG.info("broker {}: metrics, health and console on {} (bound to {})", broker.name(), uri, bound);
    }

    /** Starts the listener on {@code uri} ({@code http://HOST:PORT[?linkGrace=30s]}) with a registry of its own and JVM metrics. */
    public static MetricsEndpoint start(Broker broker, String uri) {
        return start(broker, uri, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), true);
    }

    /**
     * Starts the listener on {@code uri}, binding the broker's meters to the embedder's {@code registry} (whose
     * other meters {@code /metrics} shows too; JVM metrics are left to the embedder).
     */
    public static MetricsEndpoint start(Broker broker, String uri, PrometheusMeterRegistry registry) {
        return start(broker, uri, registry, false);
    }

    private static MetricsEndpoint start(Broker broker, String uri, PrometheusMeterRegistry registry, boolean jvm) {
        CompositeUri u = CompositeUri.parse(uri);
        if (!"http".equals(u.scheme()) || !u.hasPort()) {
            throw new IllegalArgumentException("metrics must be a URI http://HOST:PORT, but was '" + uri + "'");
        }
        Duration[] grace = {DEFAULT_LINK_GRACE};
        UriOptions.bind(u.options(), "metrics URI '" + u + "'")
                .duration("linkGrace", ChronoUnit.MILLIS, d -> grace[0] = d)
                .finish();
        if (grace[0].isNegative()) {
            throw new IllegalArgumentException("linkGrace must be >= 0, but was " + grace[0]);
        }
        try {
            return new MetricsEndpoint(broker, u, grace[0], registry, jvm);
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on metrics URI " + uri + ": " + e, e);
        }
    }

    private static List<AutoCloseable> bindJvm(PrometheusMeterRegistry registry) {
        JvmGcMetrics gc = new JvmGcMetrics();
        for (MeterBinder b : List.of(new JvmMemoryMetrics(), gc, new JvmThreadMetrics(), new ClassLoaderMetrics(),
                new ProcessorMetrics(), new UptimeMetrics())) {
            b.bindTo(registry);
        }
        return List.of(gc);
    }

    /** Where the listener is: {@code http://HOST:PORT/}, with the port it bound. */
    public URI uri() {
        return uri;
    }

    /** The registry {@code /metrics} renders. */
    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /** The broker's meters. */
    public BrokerMetrics metrics() {
        return metrics;
    }

    private void sampleQuietly() {
        try {
            console.sample();
        } catch (RuntimeException e) {
            LOG.debug("broker {}: console sample failed: {}", broker.name(), e.toString());
        }
    }

    private void handle(HttpExchange ex) throws IOException {
        try (ex) {
            String path = ex.getRequestURI().getPath();
            if (!"GET".equals(ex.getRequestMethod()) && !"HEAD".equals(ex.getRequestMethod())) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                send(ex, 405, "text/plain; charset=utf-8", "method " + ex.getRequestMethod() + " not allowed\n");
                return;
            }
            switch (path) {
                case "/metrics" -> {
                    metrics.refresh();
                    send(ex, 200, PROMETHEUS_TEXT, registry.scrape());
                }
                case "/healthz" -> {
                    boolean alive = broker.isRunning();
                    send(ex, alive ? 200 : 503, JSON, "{\"status\":\"" + (alive ? "UP" : "DOWN") + "\",\"broker\":"
                            + io.fedbridge.metrics.internal.Json.string(broker.name()) + "}\n");
                }
                case "/readyz" -> {
                    Readiness.Result r = readiness.check();
                    send(ex, r.ready() ? 200 : 503, JSON, r.json() + "\n");
                }
                case "/api/state" -> send(ex, 200, JSON, console.json());
                default -> {
                    String file = CONSOLE_FILES.get(path);
                    if (file == null) {
                        send(ex, 404, "text/plain; charset=utf-8", "not found: " + path
                                + " (try /metrics, /healthz, /readyz or / for the console)\n");
                        return;
                    }
                    sendResource(ex, file);
                }
            }
        } catch (RuntimeException e) {
            LOG.warn("broker {}: metrics request {} failed: {}", broker.name(), ex.getRequestURI(), e.toString());
        }
    }

    private static void sendResource(HttpExchange ex, String file) throws IOException {
        try (InputStream in = MetricsEndpoint.class.getResourceAsStream("internal/console/" + file)) {
            if (in == null) {
                send(ex, 500, "text/plain; charset=utf-8", "console resource " + file + " missing\n");
                return;
            }
            String type = file.endsWith(".html") ? "text/html; charset=utf-8"
                    : file.endsWith(".js") ? "text/javascript; charset=utf-8" : "text/css; charset=utf-8";
            send(ex, 200, type, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
    }

    private static void send(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.getResponseHeaders().set("Cache-Control", "no-store");
        boolean head = "HEAD".equals(ex.getRequestMethod());
        ex.sendResponseHeaders(status, head ? -1 : bytes.length == 0 ? -1 : bytes.length);
        if (!head && bytes.length > 0) {
            try (OutputStream out = ex.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops the listener and removes the broker's meters (and the JVM's, from a registry of its own). */
    @Override
    public void close() {
        server.stop(0);
        thread.shutdownNow();
        metrics.close();
        for (AutoCloseable b : binders) {
            try {
                b.close();
            } catch (Exception e) {
                LOG.debug("closing {} failed: {}", b, e.toString());
            }
        }
    }

    @Override
    public String toString() {
        return "MetricsEndpoint[" + broker.name() + ", " + uri + "]";
    }
}
