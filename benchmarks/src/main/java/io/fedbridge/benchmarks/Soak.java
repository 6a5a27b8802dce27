package io.fedbridge.benchmarks;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.FailoverConfig;
import io.fedbridge.failover.FailoverMessage;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The chaos soak: brokers in child JVMs ({@link FedbridgeBrokerMain}) bridged in a full mesh, every link through a
 * {@link LinkProxy}; one failover producer per broker sending persistent, receipted messages to its own queue, and
 * that queue's consumer on another broker. A scheduler driven by one seeded {@link Random} injects a fault every few
 * seconds: {@code kill -9} of a broker (restarted on its port and data directory after a moment), a cut link (both
 * sides reset), a stalled link (no bytes, sockets open, for a few seconds), or a full queue (a consumer stops taking
 * messages for a few seconds, so its prefetch and then its broker's queue fill up). Every broker's heap, file
 * descriptors, threads and journal bytes are sampled throughout.
 *
 * <p>With {@link Settings#ha()}, the last position of the mesh is an HA group of two members coordinated by ZooKeeper
 * ({@link SoakHaGroup}): its links and clients name both members, and killing that position kills its current primary,
 * which restarts as a backup once the other member is promoted.
 *
 * <p>At the end the faults stop, every broker runs, the producers stop and the soak waits until every receipted
 * message has arrived (or the drain time passes). Lost = receipted and never delivered; duplicated = deliveries
 * beyond the first of a message. Reordered (reported, not a failure) counts deliveries behind a later message of
 * the same producer: a failover resends in order, but a message held on a killed broker arrives when it restarts.
 *
 * <p>Threads: one per producer and per consumer worker, a sampler and a timer; the caller's thread runs the
 * scheduler. Not reusable: one {@link #run()} per instance.
 */
final class Soak {

    /**
     * The failover clients' {@code auditDepth}: the default. The client's dedupe of redeliveries no longer depends on
     * traffic volume (per-producer ranges of broker-vouched ids, docs/failover-client.md), so the soak runs as users do.
     */
    static final int CLIENT_AUDIT_DEPTH = FailoverConfig.DEFAULT_AUDIT_DEPTH;

    private static final String LINK_OPTIONS = "?duplex=true&networkTTL=2&initialReconnectDelay=100&maxReconnectDelay=1000"
            + "&heartBeat=1000";
    private static final String CLIENT_OPTIONS = "?randomize=false&initialReconnectDelay=10&maxReconnectDelay=500"
            + "&timeout=120000&heartBeatSend=1000&heartBeatReceive=1000&auditDepth=" + CLIENT_AUDIT_DEPTH;
    private static final int WINDOW = 50;
    private static final byte[] BODY = new byte[128];

    /**
     * @param length      how long faults are injected
     * @param seed        the scheduler's randomness: the same seed injects the same faults in the same order
     * @param brokers     brokers in the mesh, at least 3
     * @param rate        messages per second per producer
     * @param faultEvery  mean time between faults
     * @param sampleEvery time between two samples of every broker
     * @param drain       how long to wait after the faults for every receipted message to arrive
     * @param ha          whether the last position is an HA group of two members ({@link SoakHaGroup})
     */
    record Settings(Duration length, long seed, int brokers, int rate, Duration faultEvery, Duration sampleEvery,
                    Duration drain, boolean ha, Path workDir, List<String> jvmArgs, String classPath, PrintStream progress) {
        Settings {
            if (brokers < 3) {
                throw new IllegalArgumentException("brokers must be at least 3, but was " + brokers);
            }
            if (rate < 1) {
                throw new IllegalArgumentException("rate must be at least 1 msg/s, but was " + rate);
            }
        }
    }

    /** A fault injected (or the soak's own milestones), {@code at} ms after the start. */
    record Event(long at, String kind, String detail) {
    }

    /**
     * One broker's sample, {@code at} ms after the start. {@code broker} indexes {@link #seriesNames}: with an HA group,
     * its members are the last position's index and one more.
     */
    record Sample(long at, int broker, ProcessSample sample) {
    }

    /** The name of each sampled process: {@code B0}, {@code B1}, …, and for an HA group {@code B4a} and {@code B4b}. */
    static List<String> seriesNames(Settings s) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < s.brokers(); i++) {
            names.add("B" + i);
        }
        if (s.ha()) {
            String group = names.remove(s.brokers() - 1);
            names.add(group + "a");
            names.add(group + "b");
        }
        return names;
    }

    record Result(Settings settings, long sent, long receipted, long delivered, long lost, long duplicated, long reordered,
                  long sendFailures, int kills, int cuts, int stalls, int fills, int haKills, int haPromotions,
                  long runMillis, long drainMillis,
                  List<Event> events, List<Sample> samples, long[] deliveredPerSecond) {

        boolean passed() {
            return lost == 0 && duplicated == 0;
        }

        /** The contract's last line. */
        String line() {
            return "soak: receipted=" + receipted + " delivered=" + delivered + " lost=" + lost + " duplicated=" + duplicated
                    + " kills=" + kills + " cuts=" + cuts;
        }

        /** With an HA group, the line printed just before {@link #line()}: kills of its primary among the kills. */
        String haLine() {
            return "soak-ha: ha-kills=" + haKills + " ha-promotions=" + haPromotions;
        }
    }

    private final Settings settings;
    private final Random random;
    private final List<Node> nodes = new ArrayList<>();
    private final List<LinkProxy> links = new ArrayList<>();
    private final List<Producer> producers = new ArrayList<>();
    private final List<Consumer> consumers = new ArrayList<>();
    private final List<Event> events = new CopyOnWriteArrayList<>();
    private final List<Sample> samples = new CopyOnWriteArrayList<>();
    private final ConcurrentHashMap<Integer, LongAdder> deliveredBySecond = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "soak-timer");
        t.setDaemon(true);
        return t;
    });
    private final long start = System.nanoTime();
    private volatile boolean producing = true;
    private int kills;
    private int cuts;
    private int stalls;
    private int fills;
    private int haKills;

    Soak(Settings settings) {
        this.settings = settings;
        this.random = new Random(settings.seed());
    }

    private long now() {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    }

    private void event(String kind, String detail) {
        events.add(new Event(now(), kind, detail));
        settings.progress().printf(Locale.ROOT, "[soak %6.1f s] %s %s%n", now() / 1000.0, kind, detail);
    }

    Result run() throws Exception {
        try {
            startBrokers();
            startClients();
            timer.scheduleWithFixedDelay(this::sampleAll, 0, settings.sampleEvery().toMillis(), TimeUnit.MILLISECONDS);
            event("start", settings.brokers() + " brokers, " + producers.size() + " producers at " + settings.rate() + " msg/s");
            long faultsUntil = System.nanoTime() + settings.length().toNanos();
            while (true) {
                long gap = (long) (settings.faultEvery().toNanos() * (0.5 + random.nextDouble()));
                if (System.nanoTime() + gap >= faultsUntil) {
                    parkUntil(faultsUntil);
                    break;
                }
                parkUntil(System.nanoTime() + gap);
                injectFault();
            }
            long runMillis = now();
            event("calm", "faults stop; every link and consumer flows again, every broker runs");
            links.forEach(l -> l.stall(false));
            consumers.forEach(c -> c.pause(false));
            for (Node n : nodes) {
                n.ensureRunning();
            }
            producing = false;
            for (Producer p : producers) {
                p.awaitCompletions(Duration.ofMinutes(3));
            }
            long drainStart = System.nanoTime();
            long drainUntil = drainStart + settings.drain().toNanos();
            while (System.nanoTime() < drainUntil && producers.stream().anyMatch(p -> p.missing() > 0)) {
                parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));
            }
            long drainMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - drainStart);
            parkUntil(System.nanoTime() + TimeUnit.SECONDS.toNanos(3)); // late duplicates
            event("end", "drained in " + drainMillis + " ms");
            return result(runMillis, drainMillis);
        } finally {
            timer.shutdownNow();
            for (Consumer c : consumers) {
                c.close();
            }
            for (Producer p : producers) {
                p.close();
            }
            for (Node n : nodes) {
                n.stop();
            }
            links.forEach(LinkProxy::close);
        }
    }

    private Result result(long runMillis, long drainMillis) {
        long sent = 0;
        long receipted = 0;
        long delivered = 0;
        long lost = 0;
        long duplicated = 0;
        long reordered = 0;
        long failures = 0;
        for (Producer p : producers) {
            synchronized (p) {
                sent += p.seq.get();
                receipted += p.receipted.cardinality();
                lost += p.missing();
                delivered += p.deliveries;
                duplicated += p.duplicates;
                reordered += p.reordered;
                failures += p.failures;
            }
        }
        int seconds = deliveredBySecond.keySet().stream().mapToInt(Integer::intValue).max().orElse(-1) + 1;
        long[] perSecond = new long[seconds];
        deliveredBySecond.forEach((s, n) -> perSecond[s] = n.sum());
        int haPromotions = nodes.stream().filter(n -> n.group != null).mapToInt(n -> n.group.promotions()).sum();
        return new Result(settings, sent, receipted, delivered, lost, duplicated, reordered, failures, kills, cuts, stalls,
                fills, haKills, haPromotions, runMillis, drainMillis, List.copyOf(events), List.copyOf(samples), perSecond);
    }

    static void parkUntil(long deadline) {
        long left;
        while ((left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                Thread.currentThread().interrupt();
                throw new BenchmarkException("soak interrupted");
            }
        }
    }

    // ------------------------------------------------------------------ faults

    private void injectFault() throws IOException {
        int roll = random.nextInt(100);
        if (roll < 35) {
            Node n = nodes.get(random.nextInt(nodes.size()));
            long down = 200 + random.nextInt(2_800);
            if (n.group != null) {
                if (n.group.killPrimary(down)) {
                    kills++;
                    haKills++;
                }
                return;
            }
            kills++;
            event("kill", n.name + " (kill -9, restart after " + down + " ms)");
            n.kill();
            parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(down));
            n.ensureRunning();
        } else if (roll < 60) {
            LinkProxy l = links.get(random.nextInt(links.size()));
            cuts++;
            event("cut", l.name() + " (" + l.cut() + " connections reset)");
        } else if (roll < 80) {
            LinkProxy l = links.get(random.nextInt(links.size()));
            long ms = 2_000 + random.nextInt(4_000);
            stalls++;
            event("stall", l.name() + " for " + ms + " ms");
            l.stall(true);
            timer.schedule(() -> l.stall(false), ms, TimeUnit.MILLISECONDS);
        } else {
            Consumer c = consumers.get(random.nextInt(consumers.size()));
            long ms = 3_000 + random.nextInt(5_000);
            fills++;
            event("fill", "queue " + c.queue + ": its consumer takes nothing for " + ms + " ms");
            c.pause(true);
            timer.schedule(() -> c.pause(false), ms, TimeUnit.MILLISECONDS);
        }
    }

    private void sampleAll() {
        for (Node n : nodes) {
            if (n.group != null) {
                n.group.sample((member, s) -> samples.add(new Sample(now(), member == 0 ? n.index : settings.brokers(), s)));
                continue;
            }
            ChildJvm jvm = n.jvm;
            if (jvm == null) {
                continue;
            }
            try {
                jvm.send("sample");
                samples.add(new Sample(now(), n.index, ProcessSample.parse(jvm.awaitLine("SAMPLE ", Duration.ofSeconds(5)))));
            } catch (BenchmarkException e) {
                // killed meanwhile: no sample this time
            }
        }
    }

    // ------------------------------------------------------------------ brokers

    /** One broker: its name, port and data directory stay across kills. Or, with {@code group}, an HA group. */
    private final class Node {
        final int index;
        final String name;
        final Path data;
        final List<String> connectors = new ArrayList<>();
        SoakHaGroup group;
        int port;
        int run;
        volatile ChildJvm jvm;

        Node(int index) {
            this.index = index;
            this.name = "B" + index;
            this.data = settings.workDir().resolve(name);
        }

        /** Its client URI; for an HA group, both members' (a failover URI then lists them side by side). */
        String uri() {
            return group != null ? String.join(",", group.uris()) : "tcp://127.0.0.1:" + port;
        }

        synchronized void ensureRunning() {
            if (group != null) {
                group.ensureRunning();
                return;
            }
            if (jvm != null) {
                return;
            }
            List<String> args = new ArrayList<>(List.of("--name", name, "--data", data.toString(), "--port",
                    Integer.toString(port)));
            connectors.forEach(c -> {
                args.add("--network-connector");
                args.add(c);
            });
            Started s = startRetrying(settings, "broker " + name, () -> name + "-" + ++run, FedbridgeBrokerMain.class, args);
            port = java.net.URI.create(s.ready().split("\\s+")[0]).getPort();
            jvm = s.jvm();
        }

        synchronized void kill() {
            ChildJvm c = jvm;
            jvm = null;
            killNine(name, c);
        }

        synchronized void stop() {
            if (group != null) {
                group.stop();
            }
            if (jvm != null) {
                jvm.close();
                jvm = null;
            }
        }
    }

    /** A child JVM and what followed its {@code READY}. */
    record Started(ChildJvm jvm, String ready) {
    }

    /**
     * Starts a child JVM of the soak ({@code runName} names each attempt's log) and waits for its {@code READY}; starts
     * it again, up to 30 times, while it dies before that: the port may still be held by the killed run.
     */
    static Started startRetrying(Settings settings, String what, java.util.function.Supplier<String> runName, Class<?> main,
                                 List<String> args) {
        BenchmarkException last = null;
        for (int attempt = 0; attempt < 30; attempt++) {
            ChildJvm c;
            try {
                c = ChildJvm.start(runName.get(), settings.jvmArgs(), settings.classPath(), main, args,
                        settings.workDir().resolve("logs"));
            } catch (IOException e) {
                throw new BenchmarkException("cannot start " + what, e);
            }
            try {
                return new Started(c, c.awaitLine("READY ", Duration.ofSeconds(90)));
            } catch (BenchmarkException e) {
                c.close();
                last = e;
                parkUntil(System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200));
            }
        }
        throw last;
    }

    /** SIGKILL, then waits for the process to be gone. */
    static void killNine(String name, ChildJvm c) {
        ProcessHandle.of(c.pid()).ifPresent(h -> {
            h.destroyForcibly();
            try {
                h.onExit().get(30, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new BenchmarkException(name + " (pid " + c.pid() + ") survived kill -9", e);
            }
        });
        c.close();
    }

    /**
     * Starts every broker at once: the proxies exist first (resetting connections until their broker's port is known),
     * so each broker can name its links before the others listen; the bridges retry until the proxies relay.
     */
    private void startBrokers() throws Exception {
        Files.createDirectories(settings.workDir());
        for (int i = 0; i < settings.brokers(); i++) {
            nodes.add(new Node(i));
        }
        Node last = nodes.get(settings.brokers() - 1);
        if (settings.ha()) {
            last.group = new SoakHaGroup(last.name, settings, this::event);
        }
        List<List<LinkProxy>> into = new ArrayList<>();
        nodes.forEach(n -> into.add(new ArrayList<>()));
        for (int i = 0; i < settings.brokers(); i++) {
            for (int j = i + 1; j < settings.brokers(); j++) {
                if (nodes.get(j).group != null) {
                    // A bridge to the group names both members (one proxy each); the backup refuses it, the primary takes it.
                    List<String> members = new ArrayList<>();
                    List<String> names = seriesNames(settings);
                    List<Integer> ports = nodes.get(j).group.ports();
                    for (int m = 0; m < ports.size(); m++) {
                        LinkProxy l = LinkProxy.start(nodes.get(i).name + "-" + names.get(j + m));
                        l.target(ports.get(m));
                        links.add(l);
                        members.add(l.uri());
                    }
                    nodes.get(i).connectors.add("static:(" + String.join(",", members) + ")" + LINK_OPTIONS);
                    continue;
                }
                LinkProxy l = LinkProxy.start(nodes.get(i).name + "-" + nodes.get(j).name);
                links.add(l);
                into.get(j).add(l);
                nodes.get(i).connectors.add("static:(" + l.uri() + ")" + LINK_OPTIONS);
            }
        }
        java.util.concurrent.ExecutorService starting = Executors.newFixedThreadPool(settings.brokers());
        try {
            List<java.util.concurrent.Future<?>> started = new ArrayList<>();
            for (Node n : nodes) {
                started.add(starting.submit(() -> {
                    n.ensureRunning();
                    into.get(n.index).forEach(l -> l.target(n.port));
                    settings.progress().println("[soak] " + n.name + " listens on " + n.uri());
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : started) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException e) {
                    throw e.getCause() instanceof Exception x ? x : e;
                }
            }
        } finally {
            starting.shutdown();
        }
    }

    // ------------------------------------------------------------------ clients

    private String failoverUri(int first) {
        List<String> uris = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            uris.add(nodes.get((first + i) % nodes.size()).uri());
        }
        return "failover:(" + String.join(",", uris) + ")" + CLIENT_OPTIONS;
    }

    private void startClients() {
        for (int k = 0; k < nodes.size(); k++) {
            String queue = "/queue/soak." + k;
            Producer p = new Producer(k, queue, FailoverClient.connect(failoverUri(k)));
            producers.add(p);
            // Two brokers further on: the messages cross a bridge (or two, while a link is down).
            Consumer c = new Consumer(p, FailoverClient.connect(FailoverConfig.fromUri(failoverUri(k + 2))));
            consumers.add(c);
        }
        producers.forEach(Producer::start);
    }

    /** One producer's ledger: which sequence numbers were receipted and delivered. Guarded by itself. */
    private final class Producer {
        final int index;
        final String queue;
        final FailoverClient client;
        final AtomicLong seq = new AtomicLong();
        final Semaphore window = new Semaphore(WINDOW);
        final BitSet receipted = new BitSet();
        final BitSet delivered = new BitSet();
        long deliveries;
        long duplicates;
        long reordered;
        long highest;
        long failures;
        Thread thread;

        Producer(int index, String queue, FailoverClient client) {
            this.index = index;
            this.queue = queue;
            this.client = client;
        }

        void start() {
            thread = new Thread(this::produce, "soak-producer-" + index);
            thread.setDaemon(true);
            thread.start();
        }

        private void produce() {
            long period = TimeUnit.SECONDS.toNanos(1) / settings.rate();
            long next = System.nanoTime();
            while (producing) {
                parkUntil(next);
                next = Math.max(next + period, System.nanoTime() - period); // slots missed while blocked are skipped
                try {
                    if (!window.tryAcquire(1, TimeUnit.SECONDS)) {
                        continue;
                    }
                } catch (InterruptedException e) {
                    return;
                }
                long s = seq.incrementAndGet();
                try {
                    client.sendAsync(Message.builder(queue).persistent(true).header("p", Integer.toString(index))
                            .header("seq", Long.toString(s)).body(BODY).build()).whenComplete((r, e) -> {
                                synchronized (this) {
                                    if (e == null) {
                                        receipted.set((int) s);
                                    } else {
                                        failures++;
                                    }
                                }
                                window.release();
                            });
                } catch (RuntimeException e) {
                    synchronized (this) {
                        failures++;
                    }
                    window.release();
                }
            }
        }

        synchronized void delivered(long s) {
            deliveries++;
            if (delivered.get((int) s)) {
                duplicates++;
                return;
            }
            delivered.set((int) s);
            if (s < highest) {
                reordered++;
            }
            highest = Math.max(highest, s);
        }

        /** Receipted and not (yet) delivered. */
        synchronized long missing() {
            BitSet m = (BitSet) receipted.clone();
            m.andNot(delivered);
            return m.cardinality();
        }

        void awaitCompletions(Duration timeout) {
            try {
                if (!window.tryAcquire(WINDOW, timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    event("warning", "producer " + index + ": sends still awaiting their receipt after " + timeout);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void close() {
            producing = false;
            client.close();
        }
    }

    /** A consumer taking its producer's queue; a worker thread takes each message and acknowledges it. */
    private final class Consumer {
        final Producer producer;
        final String queue;
        final FailoverClient client;
        final BlockingQueue<FailoverMessage> taken = new LinkedBlockingQueue<>();
        final Object gate = new Object();
        boolean paused;
        volatile boolean closed;
        final Thread worker;

        Consumer(Producer producer, FailoverClient client) {
            this.producer = producer;
            this.queue = producer.queue;
            this.client = client;
            client.subscribe(SubscriptionRequest.builder(queue).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), taken::add);
            worker = new Thread(this::work, "soak-consumer-" + producer.index);
            worker.setDaemon(true);
            worker.start();
        }

        void pause(boolean on) {
            synchronized (gate) {
                paused = on;
                gate.notifyAll();
            }
        }

        private void work() {
            try {
                while (!closed) {
                    synchronized (gate) {
                        while (paused && !closed) {
                            gate.wait();
                        }
                    }
                    FailoverMessage m = taken.poll(200, TimeUnit.MILLISECONDS);
                    if (m == null) {
                        continue;
                    }
                    producer.delivered(Long.parseLong(m.header("seq")));
                    deliveredBySecond.computeIfAbsent((int) (now() / 1000), k -> new LongAdder()).increment();
                    m.ack();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        void close() {
            closed = true;
            pause(false);
            worker.interrupt();
            client.close();
        }
    }
}
