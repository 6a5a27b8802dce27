package io.fedbridge.samples;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.core.bridge.FederationBridge;
import io.fedbridge.core.bridge.NetworkConnector;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The demo's three brokers A, B and C in this JVM, each listening on its own port of 127.0.0.1 and keeping its
 * persistent messages in its own directory under one temporary directory. With {@link Discovery#STATIC} they form a
 * chain A -> B -> C; with {@link Discovery#MULTICAST} they find each other on the loopback interface and every broker
 * bridges to every other one. Every bridge has {@code networkTTL=2}, a 1 s heart-beat and retries a lost link after
 * 100 ms, backing off to 1 s.
 *
 * <p>The middle broker can be {@linkplain #stop stopped} and {@linkplain #restart restarted} on the same data
 * directory and port; the bridges to and from it reconnect by themselves. Thread-safe: {@link #close()} may come from
 * the shutdown hook while another thread starts or restarts a broker; a broker started after that is closed at once.
 */
final class DemoFederation implements AutoCloseable {

    /** How brokers find their peers. */
    enum Discovery {
        /** A chain A -> B -> C from {@code static:(…)} peer lists. */
        STATIC,
        /** Every broker announces itself on a random group of the loopback interface and bridges to every other. */
        MULTICAST
    }

    static final List<String> NAMES = List.of("A", "B", "C");
    static final String PRODUCER_BROKER = "A";
    static final String MIDDLE_BROKER = "B";
    static final String CONSUMER_BROKER = "C";
    static final String LINK_OPTIONS = "networkTTL=2&initialReconnectDelay=100&maxReconnectDelay=1000&heartBeat=1000";

    /** A bridge from one broker to another, named by the brokers' names. */
    record Link(String from, String to) {
        String label() {
            return from + " -> " + to;
        }
    }

    private final Discovery discovery;
    private final Path directory;
    private final String multicastUri;
    private final Map<String, BrokerConfig> configs = new LinkedHashMap<>();
    private final Map<String, Broker> running = new LinkedHashMap<>();
    private final Map<String, String> uris = new LinkedHashMap<>();
    /** Every broker started, stopped ones included: close() closes them all, also one still stopping. */
    private final List<Broker> started = new ArrayList<>();
    private boolean closed;

    private DemoFederation(Discovery discovery, Path directory) {
        this.discovery = discovery;
        this.directory = directory;
        ThreadLocalRandom r = ThreadLocalRandom.current();
        // A random group address, port and name: demos running at the same time never hear each other.
        this.multicastUri = "multicast://239.255." + r.nextInt(1, 255) + "." + r.nextInt(1, 255) + ":" + r.nextInt(20000, 40000)
                + "?group=demo-" + Long.toString(r.nextLong() & Long.MAX_VALUE, 36)
                + "&interface=lo&heartbeatInterval=200&" + LINK_OPTIONS;
    }

    /** Creates the temporary directory; no broker runs yet. */
    static DemoFederation create(Discovery discovery) {
        try {
            return new DemoFederation(discovery, Files.createTempDirectory("fedbridge-demo-"));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary directory for the demo's brokers: " + e.getMessage(), e);
        }
    }

    /**
     * Starts C, B and A (in that order, so that each static bridge finds its peer listening).
     *
     * @throws BrokerException if a broker cannot start; with multicast discovery, the message says to try static
     */
    void start() {
        List<String> order = new ArrayList<>(NAMES);
        Collections.reverse(order);
        for (String name : order) {
            BrokerConfig.Builder b = BrokerConfig.builder(name).listen("tcp://127.0.0.1:0").dataDirectory(directory.resolve(name));
            String connector = connectorOf(name);
            if (connector != null) {
                b.networkConnector(connector);
            }
            startBroker(b.build());
        }
    }

    /** The network connector URI of a broker, or null for the end of the chain. */
    private String connectorOf(String name) {
        if (discovery == Discovery.MULTICAST) {
            return multicastUri;
        }
        int next = NAMES.indexOf(name) + 1;
        return next < NAMES.size() ? "static:(" + uri(NAMES.get(next)) + ")?" + LINK_OPTIONS : null;
    }

    private synchronized Broker startBroker(BrokerConfig config) {
        if (closed) {
            throw new BrokerException("broker " + config.name() + " not started: the demo is stopping");
        }
        Broker broker;
        try {
            broker = Broker.start(config);
        } catch (BrokerException e) {
            throw e;
        } catch (RuntimeException e) {
            // Multicast discovery failing to join its group on the loopback interface is the likely case here.
            throw new BrokerException("broker " + config.name() + " could not start: " + e.getMessage()
                    + (discovery == Discovery.MULTICAST ? "; multicast may not be available on this machine: try --discovery static" : ""), e);
        }
        started.add(broker);
        String uri = broker.connectUris().get(0);
        running.put(config.name(), broker);
        uris.put(config.name(), uri);
        // A restart binds the same port, so that the peers' bridges find the broker where it was.
        configs.put(config.name(), config.toBuilder().listeners(List.of(uri)).build());
        return broker;
    }

    /**
     * Stops a broker abruptly, as near to a crash as this JVM allows: its connections and bridges are closed with no
     * drain, and what it stored stays in its data directory. Returns false if it was not running.
     */
    boolean stop(String name) {
        Broker broker;
        synchronized (this) {
            broker = running.remove(name);
        }
        if (broker == null) {
            return false;
        }
        broker.close();
        synchronized (this) {
            started.remove(broker);
        }
        return true;
    }

    /** Starts a stopped broker again, on its data directory and its port. */
    Broker restart(String name) {
        BrokerConfig config;
        synchronized (this) {
            if (running.containsKey(name)) {
                throw new IllegalStateException("broker " + name + " is running");
            }
            config = configs.get(name);
        }
        return startBroker(config);
    }

    Discovery discovery() {
        return discovery;
    }

    /** The directory holding every broker's data directory. */
    Path directory() {
        return directory;
    }

    /** The running broker of that name, or null while it is stopped. */
    synchronized Broker broker(String name) {
        return running.get(name);
    }

    synchronized boolean isRunning(String name) {
        return running.containsKey(name);
    }

    /** The broker's client URI; it stays the same across restarts. */
    synchronized String uri(String name) {
        return uris.get(name);
    }

    /**
     * The links the federation should have: the chain's two with static discovery, one from every broker to every
     * other with multicast.
     */
    List<Link> expectedLinks() {
        List<Link> links = new ArrayList<>();
        for (int i = 0; i < NAMES.size(); i++) {
            for (int j = 0; j < NAMES.size(); j++) {
                boolean wanted = discovery == Discovery.MULTICAST ? i != j : j == i + 1;
                if (wanted) {
                    links.add(new Link(NAMES.get(i), NAMES.get(j)));
                }
            }
        }
        return links;
    }

    /** The bridges running now, by link; a link whose bridge is down or whose broker is stopped is absent. */
    Map<Link, List<FederationBridge>> bridges() {
        Map<String, Broker> brokers;
        synchronized (this) {
            brokers = new LinkedHashMap<>(running);
        }
        Map<Link, List<FederationBridge>> bridges = new LinkedHashMap<>();
        for (Broker broker : brokers.values()) {
            for (NetworkConnector nc : broker.networkConnectors()) {
                for (FederationBridge bridge : nc.bridges()) {
                    Link link = new Link(broker.name(), nameOf(bridge.config().remoteUri()));
                    bridges.computeIfAbsent(link, l -> new ArrayList<>()).add(bridge);
                }
            }
        }
        return bridges;
    }

    /** The demo broker listening on {@code uri}, else the URI itself. */
    private synchronized String nameOf(String uri) {
        String plain = uri.toLowerCase(Locale.ROOT);
        int options = plain.indexOf('?');
        plain = options < 0 ? plain : plain.substring(0, options);
        for (Map.Entry<String, String> e : uris.entrySet()) {
            if (e.getValue().toLowerCase(Locale.ROOT).equals(plain)) {
                return e.getKey();
            }
        }
        return uri;
    }

    /** Stops every broker and deletes the temporary directory. Idempotent. */
    @Override
    public void close() {
        List<Broker> brokers;
        synchronized (this) {
            closed = true;
            brokers = new ArrayList<>(started);
            started.clear();
            running.clear();
        }
        RuntimeException failure = null;
        for (Broker broker : brokers) {
            try {
                broker.close();
            } catch (RuntimeException e) {
                failure = failure == null ? e : failure;
            }
        }
        deleteDirectory();
        if (failure != null) {
            throw failure;
        }
    }

    private void deleteDirectory() {
        if (!Files.exists(directory)) {
            return;
        }
        try {
            Files.walkFileTree(directory, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                    Files.deleteIfExists(file);
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                    if (e != null) {
                        throw e;
                    }
                    Files.deleteIfExists(dir);
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the demo's directory " + directory + ": " + e.getMessage(), e);
        }
    }
}
