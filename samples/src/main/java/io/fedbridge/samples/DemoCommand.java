package io.fedbridge.samples;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.DestinationStats;
import io.fedbridge.core.AckMode;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompException;
import io.fedbridge.core.SubscriptionRequest;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code fedbridge demo}: a broker, a producer and a consumer in this JVM, talking over real TCP on
 * 127.0.0.1. The producer sends numbered 1 KiB messages (header {@code seq}) to {@value #DESTINATION} with
 * receipts, keeping up to {@value #MAX_AWAITING_RECEIPT} unconfirmed; the consumer acknowledges each one
 * ({@code client-individual}). The last line on stdout is the verdict, e.g.
 * {@code sent=10000 received=10000 lost=0 duplicated=0}; the exit code is 0 only if every confirmed message
 * arrived exactly once.
 */
@Command(name = "demo",
        description = {"Runs a broker, a producer and a consumer in this JVM over TCP on 127.0.0.1 and checks that "
                + "every message arrives exactly once.",
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
    /** How long the consumer may go without a message before the missing ones count as lost. */
    static final Duration IDLE_TIMEOUT = Duration.ofSeconds(30);
    static final Duration RECEIPT_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration PROGRESS_INTERVAL = Duration.ofMillis(100);

    @Option(names = "--messages", paramLabel = "N", defaultValue = "10000",
            description = "How many 1 KiB messages to send. Default: ${DEFAULT-VALUE}")
    int messages;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    private volatile boolean interrupted;

    @Override
    public Integer call() throws InterruptedException {
        if (messages < 1) {
            throw new ParameterException(spec.commandLine(), "--messages must be > 0, but was " + messages);
        }
        logging.apply("warn");
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        SequenceTally tally = new SequenceTally(messages);
        Sender sender = new Sender(messages);
        long elapsedNanos;
        int lost;
        DestinationStats left;
        try (Broker broker = Broker.start(BrokerConfig.builder("demo").listen("tcp://127.0.0.1:0").build())) {
            String uri = broker.connectUris().get(0);
            out.printf("broker %s listening on %s%n", broker.name(), uri);
            try (StompConnection consumer = StompConnection.connect(uri);
                 StompConnection producer = StompConnection.connect(uri)) {
                ShutdownHook hook = ShutdownHook.register("fedbridge-demo-stop", () -> stopOnSignal(err, producer, consumer, broker));
                try {
                    elapsedNanos = exchange(producer, consumer, sender, tally, out);
                } finally {
                    hook.close();
                }
            }
            // Both connections are closed; close() waits for the DISCONNECT receipt, so the broker has applied
            // every ACK the consumer wrote before it.
            lost = tally.missing(sender.confirmed());
            left = broker.queue(DESTINATION);
        }
        if (interrupted) {
            return ExitCode.SOFTWARE;
        }
        return report(out, err, sender, tally, lost, left, elapsedNanos);
    }

    /** Subscribes, sends everything, waits for the consumer to catch up; returns the time that took. */
    private long exchange(StompConnection producer, StompConnection consumer, Sender sender, SequenceTally tally,
                          PrintWriter out) throws InterruptedException {
        consumer.subscribeAndWait(SubscriptionRequest.builder(DESTINATION).ackMode(AckMode.CLIENT_INDIVIDUAL).build(),
                m -> {
                    // Ack first: once the last message is recorded the main thread closes the connection, and
                    // the ACK must already be written ahead of that DISCONNECT.
                    m.ack();
                    tally.record(m.header(SEQ_HEADER));
                }, Duration.ofSeconds(10));
        out.printf("sending %d messages of %d bytes to %s (up to %d awaiting a receipt); the consumer acks each%n",
                messages, BODY_BYTES, DESTINATION, MAX_AWAITING_RECEIPT);
        out.flush();
        Progress progress = Progress.of(out, messages, System.console() != null);
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-demo-progress");
            t.setDaemon(true);
            return t;
        });
        long elapsedNanos;
        try {
            ticker.scheduleWithFixedDelay(() -> {
                if (!interrupted) {
                    progress.update(sender.confirmedCount(), tally.distinct());
                }
            }, 0, PROGRESS_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
            long start = System.nanoTime();
            sender.sendAll(producer);
            tally.awaitAll(sender.confirmed(), IDLE_TIMEOUT);
            elapsedNanos = System.nanoTime() - start;
        } finally {
            ticker.shutdownNow();
            ticker.awaitTermination(5, TimeUnit.SECONDS);
        }
        if (!interrupted) {
            progress.finish(sender.confirmedCount(), tally.distinct());
        }
        return elapsedNanos;
    }

    private int report(PrintWriter out, PrintWriter err, Sender sender, SequenceTally tally, int lost,
                       DestinationStats left, long elapsedNanos) {
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
        if (left != null && left.pending() + left.inflight() > 0) {
            err.println(spec.qualifiedName() + ": " + (left.pending() + left.inflight()) + " messages still on "
                    + DESTINATION + " after the consumer acknowledged everything it received: " + left);
        }
        err.flush();
        double seconds = elapsedNanos / 1e9;
        out.printf(Locale.ROOT, "%d messages through the broker in %.2f s: %.0f msg/s, %.1f MiB/s%n", tally.distinct(),
                seconds, tally.distinct() / seconds, tally.distinct() * (double) BODY_BYTES / (1 << 20) / seconds);
        out.printf("sent=%d received=%d lost=%d duplicated=%d%n", sent, tally.distinct(), lost, duplicated);
        out.flush();
        return clean ? ExitCode.OK : ExitCode.SOFTWARE;
    }

    /**
     * Ctrl-C or SIGTERM while the demo runs: drop both connections at once (nothing they still carry matters
     * now, and a DISCONNECT handshake could keep the user waiting), then close the broker. The JVM exits with
     * 130/143 once this returns.
     */
    private void stopOnSignal(PrintWriter err, StompConnection producer, StompConnection consumer, Broker broker) {
        interrupted = true;
        err.println((System.console() != null ? System.lineSeparator() : "") + spec.qualifiedName() + ": interrupted, stopping");
        err.flush();
        producer.abort();
        consumer.abort();
        broker.close();
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
                Message m = Message.builder(DESTINATION).header(SEQ_HEADER, Integer.toString(seq)).body(body).build();
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
