package io.fedbridge.broker.store;

import io.fedbridge.broker.StoredMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.mapdb.DB;
import org.mapdb.DBMaker;
import org.mapdb.HTreeMap;
import org.mapdb.Serializer;

/**
 * Measures the journal's group commit on this machine: records/s of 1 KiB adds with SYNC durability and 1, 16 and
 * 128 adds in flight (plus ASYNC with 128), against MapDB with transactions committing 1 and 100 puts per commit.
 * Arguments: [directory (default: a temp directory)] [seconds per run (default 3)].
 *
 * <pre>
 * mvn -q -B -pl broker test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test
 * java -cp "broker/target/test-classes:broker/target/classes:$(cat /tmp/cp.txt)" \
 *     io.fedbridge.broker.store.JournalThroughputMain broker/target/bench 3
 * </pre>
 */
public final class JournalThroughputMain {

    private static final byte[] BODY = new byte[1024];

    private JournalThroughputMain() {
    }

    public static void main(String[] args) throws Exception {
        Path base = args.length > 0 ? Path.of(args[0]) : Files.createTempDirectory("fedbridge-journal-bench");
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        System.out.printf("fedbridge journal throughput, 1 KiB bodies, %d s per run, %d cores, in %s%n", seconds,
                Runtime.getRuntime().availableProcessors(), base);
        try {
            for (int inFlight : new int[] {1, 16, 128}) {
                journal(base, Durability.SYNC, inFlight, seconds);
            }
            journal(base, Durability.ASYNC, 128, seconds);
            for (int perCommit : new int[] {1, 100}) {
                mapDb(base, perCommit, seconds);
            }
        } finally {
            delete(base);
        }
    }

    private static void journal(Path base, Durability durability, int inFlight, long seconds) throws Exception {
        Path dir = base.resolve("journal-" + durability + "-" + inFlight);
        StoreConfig config = StoreConfig.ofDefaults(dir).toBuilder().durability(durability).build();
        try (JournalMessageStore store = JournalMessageStore.open(config)) {
            Semaphore permits = new Semaphore(inFlight);
            AtomicLong completed = new AtomicLong();
            long sequence = 0;
            long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            long start = 0;
            long startCount = 0;
            long end = warmEnd + TimeUnit.SECONDS.toNanos(seconds);
            boolean measuring = false;
            while (true) {
                long now = System.nanoTime();
                if (!measuring && now >= warmEnd) {
                    measuring = true;
                    start = now;
                    startCount = completed.get();
                }
                if (now >= end) {
                    break;
                }
                permits.acquire();
                long s = ++sequence;
                store.add("/queue/bench", new StoredMessage(s, "ID:" + s, "/queue/bench", Map.of(), BODY, 0))
                        .whenComplete((v, e) -> {
                            if (e != null) {
                                System.err.println("add failed: " + e);
                            }
                            completed.incrementAndGet();
                            permits.release();
                        });
            }
            double rate = (completed.get() - startCount) / ((System.nanoTime() - start) / 1e9);
            permits.acquire(inFlight);
            System.out.printf("journal %-5s %4d in flight: %,10.0f records/s%n", durability, inFlight, rate);
        }
        delete(dir);
    }

    private static void mapDb(Path base, int perCommit, long seconds) throws IOException {
        Path file = base.resolve("mapdb-" + perCommit + ".db");
        DB db = DBMaker.fileDB(file.toFile()).transactionEnable().fileMmapEnableIfSupported().cleanerHackEnable().make();
        try {
            HTreeMap<Long, byte[]> map = db.hashMap("bench", Serializer.LONG, Serializer.BYTE_ARRAY).createOrOpen();
            long key = 0;
            long warmEnd = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() < warmEnd) {
                for (int i = 0; i < perCommit; i++) {
                    map.put(key++, BODY);
                }
                db.commit();
            }
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long n = 0;
            while (System.nanoTime() < end) {
                for (int i = 0; i < perCommit; i++) {
                    map.put(key++, BODY);
                }
                db.commit();
                n += perCommit;
            }
            System.out.printf("MapDB, transactions, %3d puts/commit: %,10.0f records/s%n", perCommit,
                    n / ((System.nanoTime() - start) / 1e9));
        } finally {
            db.close();
        }
    }

    private static void delete(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> s = Files.walk(p)) {
            for (Path f : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }
}
