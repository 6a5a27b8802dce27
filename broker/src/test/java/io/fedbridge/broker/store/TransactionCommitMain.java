package io.fedbridge.broker.store;

import io.fedbridge.broker.StoredMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures what a transacted commit costs the journal (SYNC durability): commits/s of a commit that stores
 * {@code sends} 1 KiB results plus the next commit's job and removes its own job (the ack), written as separate records (each its own submit, as before
 * commits were atomic) or as one unit ({@link JournalMessageStore#atomically}, one GROUP record), with 1 and 16
 * commits in flight. The two ways alternate, round after round, so load from other processes hits both alike; the
 * report gives each one's median and spread. Arguments: [directory (default: a temp directory)] [seconds per round
 * (default 2)] [rounds (default 5)].
 *
 * <pre>
 * mvn -q -B -o -pl broker -am test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp "broker/target/test-classes:broker/target/classes:$(cat /tmp/cp.txt)" \
 *     io.fedbridge.broker.store.TransactionCommitMain broker/target/bench 2 5
 * </pre>
 */
public final class TransactionCommitMain {

    private static final byte[] BODY = new byte[1024];

    private TransactionCommitMain() {
    }

    public static void main(String[] args) throws Exception {
        Path base = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("fedbridge-commit-bench");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 2;
        int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        System.out.printf("fedbridge transacted commit, SYNC, 1 KiB sends, %d s x %d rounds, %d cores, in %s%n", seconds,
                rounds, Runtime.getRuntime().availableProcessors(), base);
        for (int sends : new int[] {1, 3}) {
            for (int inFlight : new int[] {1, 16}) {
                List<Double> separate = new ArrayList<>();
                List<Double> grouped = new ArrayList<>();
                for (int round = 0; round < rounds; round++) {
                    separate.add(run(base.resolve("s-" + sends + "-" + inFlight + "-" + round), sends, inFlight, seconds, false));
                    grouped.add(run(base.resolve("g-" + sends + "-" + inFlight + "-" + round), sends, inFlight, seconds, true));
                }
                System.out.printf("%d result(s) + next job + 1 ack, %2d in flight: separate records %s, one group %s commits/s%n",
                        sends, inFlight, summary(separate), summary(grouped));
            }
        }
    }

    private static String summary(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return String.format("%.0f [%.0f-%.0f]", sorted.get(sorted.size() / 2), sorted.get(0), sorted.get(sorted.size() - 1));
    }

    /** Commits/s for {@code seconds}; each commit removes a message the commit before stored. */
    private static double run(Path dir, int sends, int inFlight, long seconds, boolean atomically) throws Exception {
        try (JournalMessageStore store = JournalMessageStore.open(StoreConfig.builder().directory(dir).build())) {
            AtomicLong seq = new AtomicLong();
            store.add("/queue/jobs", message(seq.incrementAndGet(), "/queue/jobs")).join();
            Semaphore window = new Semaphore(inFlight);
            long commits = 0;
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            long started = System.nanoTime();
            long job = 1;
            while (System.nanoTime() < end) {
                window.acquire();
                List<CompletableFuture<Void>> writes = new ArrayList<>(sends + 2);
                long consumed = job;
                long next = seq.incrementAndGet();
                job = next;
                Runnable commit = () -> {
                    for (int i = 0; i < sends; i++) {
                        writes.add(store.add("/queue/results", message(seq.incrementAndGet(), "/queue/results")));
                    }
                    writes.add(store.add("/queue/jobs", message(next, "/queue/jobs"))); // the next commit's job
                    writes.add(store.remove("/queue/jobs", consumed, true));
                };
                if (atomically) {
                    store.atomically(commit);
                } else {
                    commit.run();
                }
                CompletableFuture.allOf(writes.toArray(CompletableFuture[]::new)).whenComplete((v, e) -> window.release());
                commits++;
            }
            window.acquire(inFlight);
            return commits * 1e9 / (System.nanoTime() - started);
        }
    }

    private static StoredMessage message(long sequence, String destination) {
        return new StoredMessage(sequence, "ID:bench-" + sequence, destination, Map.of("persistent", "true"), BODY, 0);
    }
}
