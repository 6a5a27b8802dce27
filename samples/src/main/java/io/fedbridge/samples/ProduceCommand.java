package io.fedbridge.samples;

import io.fedbridge.core.Message;
import io.fedbridge.failover.FailoverClient;
import io.fedbridge.failover.SendReceipt;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/**
 * {@code fedbridge produce}: sends numbered messages (header {@code seq} = 1..N) through the failover client and
 * ends with {@code sent=… failed=… duplicates=…}, where duplicates are resends the broker had already accepted.
 */
@Command(name = "produce", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Send N numbered messages (header seq=1..N) and wait for every receipt.")
final class ProduceCommand implements Callable<Integer> {

    @Option(names = "--url", required = true, paramLabel = "URL",
            description = "Broker URI: tcp://host:port, or failover:(tcp://a:61613,tcp://b:61613)?options")
    String url;

    @Option(names = "--destination", required = true, paramLabel = "DEST", description = "e.g. /queue/orders")
    String destination;

    @Option(names = "--count", required = true, paramLabel = "N", description = "Messages to send.")
    int count;

    @Option(names = "--size", paramLabel = "BYTES", defaultValue = "1024", description = "Body size (default ${DEFAULT-VALUE}).")
    int size;

    @Option(names = "--persistent", description = "Send persistent messages (receipted once on disk).")
    boolean persistent;

    @Option(names = "--rate", paramLabel = "MSGS_PER_S", defaultValue = "0", description = "Send at most this many per second (0 = as fast as receipts allow).")
    int rate;

    @Mixin
    LoggingOptions logging;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        logging.apply("warn");
        if (count < 0 || size < 0 || rate < 0) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--count, --size and --rate must be >= 0, but were " + count + ", " + size + ", " + rate);
        }
        PrintWriter out = spec.commandLine().getOut();
        Progress progress = Progress.of(out, "sent", count);
        AtomicLong failed = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        AtomicLong receipted = new AtomicLong();
        Semaphore window = new Semaphore(1000);
        byte[] body = new byte[size];
        java.util.Arrays.fill(body, (byte) 'x');
        try (FailoverClient client = FailoverClient.connect(url)) {
            long start = System.nanoTime();
            for (int seq = 1; seq <= count; seq++) {
                if (rate > 0) {
                    long due = start + (long) ((seq - 1) * (1e9 / rate));
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        LockSupport.parkNanos(wait);
                    }
                }
                window.acquire();
                Message m = Message.builder(destination).body(body).persistent(persistent)
                        .header("seq", Integer.toString(seq)).build();
                CompletableFuture<SendReceipt> f = client.sendAsync(m);
                f.whenComplete((r, e) -> {
                    try {
                        if (e != null) {
                            failed.incrementAndGet();
                        } else {
                            receipted.incrementAndGet();
                            if (r.duplicate()) {
                                duplicates.incrementAndGet();
                            }
                        }
                        progress.update(receipted.get() + failed.get());
                    } finally {
                        // last: the summary waits for every permit, so it must see this send counted
                        window.release();
                    }
                });
            }
            window.acquire(1000);
            window.release(1000);
        }
        progress.done();
        long failures = failed.get();
        out.println("sent=" + receipted.get() + " failed=" + failures + " duplicates=" + duplicates.get());
        out.flush();
        return failures == 0 ? 0 : 1;
    }
}
