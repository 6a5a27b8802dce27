package io.fedbridge.samples;

import static io.fedbridge.samples.DemoFederation.CONSUMER_BROKER;
import static io.fedbridge.samples.DemoFederation.MIDDLE_BROKER;
import static io.fedbridge.samples.DemoFederation.PRODUCER_BROKER;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompException;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.samples.DemoFederation.Discovery;
import io.fedbridge.samples.LinkMonitor.Row;
import io.fedbridge.samples.LinkMonitor.Snapshot;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code fedbridge demo}: a federation at work. Three brokers in this JVM, A, B and C (see {@link DemoFederation}),
 * each on its own port of 127.0.0.1 with its own data directory, bridged in a chain A -> B -> C. A producer connected
 * to A sends numbered persistent 1 KiB messages (header {@code seq}) to {@value #DESTINATION} with receipts, keeping up
 * to {@value #MAX_AWAITING_RECEIPT} unconfirmed; {@value #CONSUMERS} consumers connected to C acknowledge each one
 * ({@code client-individual}). The messages cross both bridges: neither A nor B has a consumer.
 *
 * <p>On a terminal it shows a progress bar and a table per link, refreshed five times a second; otherwise a line per
 * quarter of the messages and the table at the end. With {@code --kill-middle}, once a third of the messages reached
 * C, B is stopped abruptly and restarted on its data directory and port; the bridges reconnect by themselves and
 * nothing is lost. The last line on stdout is the verdict, e.g. {@code sent=10000 received=10000 lost=0 duplicated=0};
 * the exit code is 0 only if every confirmed message arrived exactly once. Everything it started (brokers,
 * connections, threads, the temporary directory) is gone when it returns, also after Ctrl-C.
 */
@Command(name = "demo",
        description = {"Runs three brokers A -> B -> C bridged in this JVM (over TCP on 127.0.0.1), a producer on A and "
                + "consumers on C, and checks that every message arrives exactly once.",
            "The last line is the verdict: sent=N received=N lost=0 duplicated=0 (received counts distinct messages)."},
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = FedbridgeCli.Version.class,
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {
            "0:every message sent arrived exactly once",
            "1:messages were lost or duplicated, or the demo failed",
            "2:invalid command line"})
final class DemoCommand implements Callable<Integer> {

    static final String DESTINATION = "/queue/demo";
    static final String SEQ_HEADER = "seq";
    static final int BODY_BYTES = 1024;
    static final int MAX_AWAITING_RECEIPT = 1000;
    static final int CONSUMERS = 2;
    /** How long the consumers may go without a message before the missing ones count as lost. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    static final Duration RECEIPT_TIMEOUT = Duration.ofSeconds(30);
    /** How long the federation may take to connect, and to reconnect after a restart. */
    static final Duration LINK_TIMEOUT = Duration.ofSeconds(30);
    /** How long B stays stopped with {@code --kill-middle}. */
    static final Duration DOWNTIME = Duration.ofSeconds(1);
    private static final Duration REFRESH_INTERVAL = Duration.ofMillis(200);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(20);

    @Option(names = "--messages", paramLabel = "N", defaultValue = "10000",
            description = "How many 1 KiB messages to send. Default: ${DEFAULT-VALUE}")
    int messages;

    @Option(names = "--kill-middle",
            description = "Stop broker B abruptly once a third of the messages reached C, and restart it on the same data "
                + "directory and port: the bridges fail over and reconnect, and nothing is lost.")
    boolean killMiddle;

    @Option(names = "--discovery", paramLabel = "static|multicast", defaultValue = "static",
            converter = DiscoveryConverter.class,
            description = {"How the brokers find each other: static (a chain A -> B -> C from peer lists) or multicast "
                + "(announcements on the loopback interface; every broker bridges to every other, where the machine "
                + "supports multicast on lo). Default: ${DEFAULT-VALUE}"})
    Discovery discovery;

    @Option(names = "--plain", description = "Print plain progress lines instead of the live view, even on a terminal. "
            + "Without a terminal (a pipe, a file, CI) that is what the demo does anyway.")
    boolean plain;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    private volatile boolean interrupted;

    @Override
    public Integer call() throws Exception {
        if (messages < 1) {
            throw new ParameterException(spec.commandLine(), "--messages must be > 0, but was " + messages);
        }
        logging.apply("warn");
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        DemoFederation federation = DemoFederation.create(discovery);
        List<StompConnection> connections = new CopyOnWriteArrayList<>();
        ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(daemon("fedbridge-demo-timer"));
        ExecutorService producing = Executors.newSingleThreadExecutor(daemon("fedbridge-demo-producer"));
        ShutdownHook hook = ShutdownHook.register("fedbridge-demo-stop", () -> stopOnSignal(err, connections, federation));
        try {
            federation.start();
            return run(federation, connections, timer, producing, out, err);
        } catch (RuntimeException e) {
            if (interrupted) {
                return ExitCode.SOFTWARE;
            }
            throw e;
        } finally {
            hook.close();
            producing.shutdownNow();
            timer.shutdownNow();
            for (StompConnection c : connections) {
                c.abort();
            }
            federation.close();
        }
    }

    private int run(DemoFederation federation, List<StompConnection> connections, ScheduledExecutorService timer,
                    ExecutorService producing, PrintWriter out, PrintWriter err) throws InterruptedException {
        describeSetup(federation, out);
        SequenceTally tally = new SequenceTally(messages);
        Sender sender = new Sender(messages);
        List<StompConnection> consumers = new ArrayList<>();
        for (int i = 0; i < CONSUMERS; i++) {
            StompConnection consumer = connect(federation.uri(CONSUMER_BROKER), connections);
            consumer.subscribeAndWait(SubscriptionRequest.builder(DESTINATION).ackMode(AckMode.CLIENT_INDIVIDUAL).build(), m -> {
                // Ack first: once the last message is recorded the main thread closes the connection, and the ACK
                // must already be written ahead of that DISCONNECT.
                m.ack();
                tally.record(m.header(SEQ_HEADER));
            }, Duration.ofSeconds(10));
            consumers.add(consumer);
        }
        StompConnection producer = connect(federation.uri(PRODUCER_BROKER), connections);

        LinkMonitor monitor = new LinkMonitor(federation, DESTINATION);
        long readyStart = System.nanoTime();
        if (!until(timer, () -> monitor.sample(System.nanoTime()).isReady(PRODUCER_BROKER), LINK_TIMEOUT)) {
            throw new BrokerException("the federation did not connect within " + LINK_TIMEOUT.toSeconds() + " s: "
                    + states(monitor.sample(System.nanoTime())) + (federation.discovery() == Discovery.MULTICAST
                        ? "; multicast may not be available on this machine: try --discovery static" : ""));
        }
        out.printf("federation ready in %d ms: %s; the consumers' demand reached %s%n", millisSince(readyStart),
                states(monitor.sample(System.nanoTime())), PRODUCER_BROKER);
        out.flush();

        DemoView view = DemoView.of(out, !plain && isTerminal());
        long start = System.nanoTime();
        ScheduledFuture<?> refreshing = timer.scheduleWithFixedDelay(() -> {
            if (!interrupted) {
                view.refresh(status(sender, tally, monitor, start));
            }
        }, 0, REFRESH_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<Void> sending = CompletableFuture.runAsync(() -> {
            try {
                sender.sendAll(producer);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            }
        }, producing);
        if (killMiddle) {
            killAndRestartMiddle(federation, monitor, tally, sender, view, timer);
        }
        try {
            sending.get();
        } catch (ExecutionException e) {
            sender.fail(e.getCause());
        }
        tally.awaitAll(sender.confirmed(), IDLE_TIMEOUT);
        long elapsedNanos = System.nanoTime() - start;
        refreshing.cancel(false);
        // The last ACKs, and the bridges' acknowledgements of their source copies, are applied asynchronously.
        until(timer, () -> held(federation) == 0, Duration.ofSeconds(5));
        view.finish(new DemoView.Status(messages, sender.confirmedCount(), tally.distinct(), elapsedNanos,
                monitor.sample(System.nanoTime())));

        // close() waits for the DISCONNECT receipt: C has then applied every ACK its consumers wrote before it.
        for (StompConnection c : consumers) {
            c.close();
        }
        producer.close();
        int lost = tally.missing(sender.confirmed());
        if (interrupted) {
            return ExitCode.SOFTWARE;
        }
        return report(out, err, federation, sender, tally, lost, elapsedNanos);
    }

    private void describeSetup(DemoFederation federation, PrintWriter out) {
        out.printf("fedbridge demo: brokers A, B and C in this JVM, %s, networkTTL=2%n",
                federation.discovery() == Discovery.STATIC
                    ? "bridged in a chain A -> B -> C by static discovery"
                    : "each bridged to the others by multicast discovery on the loopback interface");
        for (String name : DemoFederation.NAMES) {
            String role = name.equals(PRODUCER_BROKER) ? "  <- the producer"
                    : name.equals(CONSUMER_BROKER) ? "  <- " + CONSUMERS + " consumers" : "";
            out.printf("  broker %s  %s%s%n", name, federation.uri(name), role);
        }
        out.printf("  data directories in %s (deleted at the end)%n", federation.directory());
        if (federation.discovery() == Discovery.MULTICAST) {
            out.printf("  every broker bridges to every other, so the messages take the direct link A -> C%n");
        }
        out.printf("the producer sends %d persistent messages of %d bytes to %s (header %s=1..%d, up to %d awaiting a "
                + "receipt); the consumers ack each one (client-individual)%n",
                messages, BODY_BYTES, DESTINATION, SEQ_HEADER, messages, MAX_AWAITING_RECEIPT);
        if (killMiddle) {
            out.printf("--kill-middle: broker %s will be stopped abruptly and restarted once a third of the messages "
                    + "reached %s%n", MIDDLE_BROKER, CONSUMER_BROKER);
        }
        out.flush();
    }

    /**
     * Stops B once a third of the messages reached C, keeps it down for {@link #DOWNTIME}, restarts it and waits for
     * every link to be up again. Everything it sees is an event.
     */
    private void killAndRestartMiddle(DemoFederation federation, LinkMonitor monitor, SequenceTally tally, Sender sender,
                                      DemoView view, ScheduledExecutorService timer) throws InterruptedException {
        int third = Math.max(1, messages / 3);
        if (!tally.awaitDistinct(third, IDLE_TIMEOUT)) {
            view.event("--kill-middle: " + CONSUMER_BROKER + " did not receive " + third + " messages within "
                    + IDLE_TIMEOUT.toSeconds() + " s; " + MIDDLE_BROKER + " is left running");
            return;
        }
        view.event(String.format(Locale.ROOT, "--kill-middle: %d messages reached %s; stopping %s abruptly (in this JVM: "
                + "its connections and bridges are closed with no drain, the closest to kill -9)",
                tally.distinct(), CONSUMER_BROKER, MIDDLE_BROKER));
        long stopping = System.nanoTime();
        federation.stop(MIDDLE_BROKER);
        view.event(String.format(Locale.ROOT, "--kill-middle: %s stopped in %d ms; %s holds the %d messages it has not "
                + "forwarded yet%s; %s's consumers ack what already reached %s", MIDDLE_BROKER, millisSince(stopping),
                PRODUCER_BROKER, held(federation.broker(PRODUCER_BROKER)),
                sender.confirmedCount() < messages ? " and keeps confirming the producer's sends" : "",
                CONSUMER_BROKER, CONSUMER_BROKER));
        // Pacing, not waiting for something: the outage lasts long enough to be seen in the live table.
        TimeUnit.MILLISECONDS.sleep(DOWNTIME.toMillis());
        long restarting = System.nanoTime();
        Broker restarted = federation.restart(MIDDLE_BROKER);
        view.event(String.format(Locale.ROOT, "--kill-middle: %s restarted on %s (same data directory, same port) in %d "
                + "ms, %d ms after it stopped, with %d messages it had stored; the bridges reconnect by themselves",
                MIDDLE_BROKER, restarted.connectUris().get(0), millisSince(restarting), millisSince(stopping), held(restarted)));
        if (until(timer, () -> monitor.sample(System.nanoTime()).links().stream().allMatch(Row::isUp), LINK_TIMEOUT)) {
            view.event(String.format(Locale.ROOT, "--kill-middle: every link up again %d ms after the restart: %s",
                    millisSince(restarting), states(monitor.sample(System.nanoTime()))));
        } else {
            view.event("--kill-middle: links not all up " + LINK_TIMEOUT.toSeconds() + " s after the restart: "
                    + states(monitor.sample(System.nanoTime())));
        }
    }

    private int report(PrintWriter out, PrintWriter err, DemoFederation federation, Sender sender, SequenceTally tally,
                       int lost, long elapsedNanos) {
        int sent = sender.confirmedCount();
        long duplicated = tally.duplicates();
        boolean clean = lost == 0 && duplicated == 0 && sender.failure() == null && sent == messages;
        if (sender.failure() != null) {
            err.println(spec.qualifiedName() + ": sending stopped after " + sent + " of " + messages
                    + " confirmed messages: " + sender.failure().getMessage());
        }
        if (tally.unexpected() > 0) {
            err.println(spec.qualifiedName() + ": " + tally.unexpected() + " deliveries without a valid " + SEQ_HEADER + " header");
        }
        long dropped = 0;
        for (String name : DemoFederation.NAMES) {
            Broker broker = federation.broker(name);
            if (broker == null) {
                continue;
            }
            dropped += broker.duplicatesDropped();
            DestinationStats left = broker.queue(DESTINATION);
            if (left != null && left.pending() + left.inflight() > 0) {
                err.println(spec.qualifiedName() + ": " + (left.pending() + left.inflight()) + " messages still on "
                        + DESTINATION + " at broker " + name + " after the consumers acknowledged everything they received: " + left);
            }
        }
        err.flush();
        if (killMiddle) {
            out.printf("resent after the failover and dropped as duplicates by the brokers: %d%n", dropped);
        }
        double seconds = elapsedNanos / 1e9;
        out.printf(Locale.ROOT, "%d messages from %s to %s in %.2f s: %.0f msg/s, %.1f MiB/s%n", tally.distinct(),
                PRODUCER_BROKER, CONSUMER_BROKER, seconds, tally.distinct() / seconds,
                tally.distinct() * (double) BODY_BYTES / (1 << 20) / seconds);
        out.printf("sent=%d received=%d lost=%d duplicated=%d%n", sent, tally.distinct(), lost, duplicated);
        out.flush();
        return clean ? ExitCode.OK : ExitCode.SOFTWARE;
    }

    private DemoView.Status status(Sender sender, SequenceTally tally, LinkMonitor monitor, long start) {
        long now = System.nanoTime();
        return new DemoView.Status(messages, sender.confirmedCount(), tally.distinct(), now - start, monitor.sample(now));
    }

    private static String states(Snapshot s) {
        return s.links().stream().map(r -> r.link().label() + " " + r.state()).collect(Collectors.joining(", "));
    }

    /** Messages on the demo queue not yet acknowledged, at every running broker. */
    private static int held(DemoFederation federation) {
        int held = 0;
        for (String name : DemoFederation.NAMES) {
            held += held(federation.broker(name));
        }
        return held;
    }

    private static int held(Broker broker) {
        if (broker == null) {
            return 0;
        }
        DestinationStats q = broker.queue(DESTINATION);
        return q == null ? 0 : q.pending() + q.inflight();
    }

    private static StompConnection connect(String uri, List<StompConnection> connections) {
        StompConnection c = StompConnection.connect(uri);
        connections.add(c);
        return c;
    }

    /**
     * Polls {@code condition} on {@code timer} until it holds or {@code timeout} passes; true if it held. A condition
     * that throws counts as not holding yet (a broker may be closing under it).
     */
    private static boolean until(ScheduledExecutorService timer, BooleanSupplier condition, Duration timeout)
            throws InterruptedException {
        CompletableFuture<Void> met = new CompletableFuture<>();
        ScheduledFuture<?> polling = timer.scheduleWithFixedDelay(() -> {
            try {
                if (condition.getAsBoolean()) {
                    met.complete(null);
                }
            } catch (RuntimeException notYet) {
                // checked again on the next poll
            }
        }, 0, POLL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
        try {
            met.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        } finally {
            polling.cancel(false);
        }
    }

    private static long millisSince(long nanos) {
        return (System.nanoTime() - nanos) / 1_000_000;
    }

    /** A terminal that understands ANSI escapes: stdin and stdout not redirected, and not a dumb terminal. */
    private static boolean isTerminal() {
        return System.console() != null && !"dumb".equals(System.getenv("TERM"));
    }

    private static ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * Ctrl-C or SIGTERM while the demo runs: drop every connection at once (nothing they still carry matters now,
     * and a DISCONNECT handshake could keep the user waiting), then stop the brokers and delete their directory.
     * The JVM exits with 130/143 once this returns.
     */
    private void stopOnSignal(PrintWriter err, List<StompConnection> connections, DemoFederation federation) {
        interrupted = true;
        err.println((isTerminal() ? System.lineSeparator() : "") + spec.qualifiedName() + ": interrupted, stopping");
        err.flush();
        for (StompConnection c : connections) {
            c.abort();
        }
        federation.close();
    }

    /** {@code --discovery}: the two names, in any case. */
    static final class DiscoveryConverter implements ITypeConverter<Discovery> {
        @Override
        public Discovery convert(String value) {
            try {
                return Discovery.valueOf(value.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("must be static or multicast, but was '" + value + "'");
            }
        }
    }

    /**
     * Sends messages 1..n with receipts, at most {@value #MAX_AWAITING_RECEIPT} unconfirmed at a time, and
     * remembers which the broker confirmed. Stops at the first failure.
     */
    static final class Sender {
        private final int count;
        private final byte[] body;
        private final BitSet confirmed;
        private final AtomicInteger confirmedCount = new AtomicInteger();
        private final AtomicReference<Throwable> failure = new AtomicReference<>();
        private final Semaphore window = new Semaphore(MAX_AWAITING_RECEIPT);

        Sender(int count) {
            this.count = count;
            this.confirmed = new BitSet(count + 1);
            this.body = new byte[BODY_BYTES];
            Arrays.fill(body, (byte) 'x');
        }

        void sendAll(StompConnection producer) throws InterruptedException {
            for (int seq = 1; seq <= count && failure.get() == null; seq++) {
                window.acquire();
                int s = seq;
                Message m = Message.builder(DESTINATION).header(SEQ_HEADER, Integer.toString(seq)).persistent(true)
                        .body(body).build();
                try {
                    producer.send(m).whenComplete((v, e) -> {
                        if (e == null) {
                            synchronized (confirmed) {
                                confirmed.set(s);
                            }
                            confirmedCount.incrementAndGet();
                        } else {
                            failure.compareAndSet(null, e);
                        }
                        window.release();
                    });
                } catch (StompException e) {
                    window.release();
                    failure.compareAndSet(null, e);
                }
            }
            if (!window.tryAcquire(MAX_AWAITING_RECEIPT, RECEIPT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                failure.compareAndSet(null, new StompException((MAX_AWAITING_RECEIPT - window.availablePermits())
                        + " receipts did not arrive within " + RECEIPT_TIMEOUT));
            }
        }

        void fail(Throwable cause) {
            failure.compareAndSet(null, cause);
        }

        /** A copy of the sequence numbers the broker confirmed. */
        BitSet confirmed() {
            synchronized (confirmed) {
                return (BitSet) confirmed.clone();
            }
        }

        int confirmedCount() {
            return confirmedCount.get();
        }

        Throwable failure() {
            return failure.get();
        }
    }
}
