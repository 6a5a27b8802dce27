package io.fedbridge.broker.store;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Run by {@link JournalCrashIT} in a child JVM, to be killed: opens the store with SYNC durability and adds (and
 * removes nine in ten) messages from several threads, printing {@code A key seq $} / {@code R key seq $} only once
 * the future of that add / remove has completed (the {@code $} marks a line the kill did not cut). Arguments:
 * directory, threads.
 */
public final class JournalCrashChild {

    static final long SEGMENT_SIZE = StoreConfig.MIN_SEGMENT_SIZE;
    static final int KEYS = 5;

    private JournalCrashChild() {
    }

    static StoreConfig config(Path dir) {
        return StoreConfig.builder().directory(dir).durability(Durability.SYNC).segmentSize(SEGMENT_SIZE)
                .compactionThreshold(0.5).build();
    }

    /** Nine in ten messages are removed at once, so segments turn sparse and get compacted and deleted. */
    static boolean removes(long sequence) {
        return sequence % 10 != 0;
    }

    static String key(long sequence) {
        return "/queue/k" + (sequence % KEYS);
    }

    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        int threads = Integer.parseInt(args[1]);
        JournalMessageStore store = JournalMessageStore.open(config(dir));
        store.recover((k, m) -> { });
        AtomicLong sequence = new AtomicLong(store.lastSequence());
        System.out.println("READY " + store.lastSequence() + " $");
        for (int t = 0; t < threads; t++) {
            Thread worker = new Thread(() -> {
                while (true) {
                    long s = sequence.incrementAndGet();
                    String key = key(s);
                    store.add(key, TestMessages.randomSized(s, key)).join();
                    System.out.println("A " + key + " " + s + " $");
                    if (removes(s)) {
                        store.remove(key, s).join();
                        System.out.println("R " + key + " " + s + " $");
                    }
                }
            }, "adder-" + t);
            worker.start();
        }
    }
}
