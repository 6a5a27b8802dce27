package io.fedbridge.ha.internal;

import io.fedbridge.broker.BrokerException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * An HA member's data directory: the broker's own layout ({@code broker.id}, {@code dedupe.db}, {@code journal/})
 * plus {@code ha.epoch}, the highest epoch this member has seen (kept across restarts, so that a primary from the
 * past is recognised).
 */
public final class DataDirectory {

    private final Path dir;
    private volatile long epoch;

    public DataDirectory(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            Path f = dir.resolve("ha.epoch");
            if (Files.exists(f)) {
                String s = Files.readString(f, StandardCharsets.UTF_8).trim();
                try {
                    epoch = Long.parseLong(s);
                } catch (NumberFormatException e) {
                    throw new BrokerException(f + " must hold an HA epoch (a number), but holds '" + s + "'");
                }
            }
        } catch (IOException e) {
            throw new BrokerException("cannot use HA data directory " + dir + ": " + e, e);
        }
    }

    public Path path() {
        return dir;
    }

    public Path journal() {
        return dir.resolve("journal");
    }

    public long epoch() {
        return epoch;
    }

    /** Records a higher epoch durably (a lower one is ignored). */
    public synchronized void epoch(long newEpoch) {
        if (newEpoch <= epoch) {
            return;
        }
        write("ha.epoch", Long.toString(newEpoch));
        epoch = newEpoch;
    }

    /**
     * Empties the store for a new primary's copy: the journal and the dedupe window go (the journal brings its
     * federation ids back), the broker id becomes the primary's (the group is one broker to the federation).
     */
    public synchronized void wipeForReplica(String primaryBrokerId, long primaryEpoch) {
        epoch(primaryEpoch);
        try {
            deleteTree(journal());
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.getFileName().toString().startsWith("dedupe.db")).toList()) {
                    deleteTree(f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty " + dir + " for replication: " + e.getMessage(), e);
        }
        if (primaryBrokerId != null) {
            write("broker.id", primaryBrokerId);
        }
    }

    private void write(String name, String content) {
        try {
            Path tmp = dir.resolve(name + ".tmp");
            Files.writeString(tmp, content + "\n", StandardCharsets.UTF_8);
            try (var ch = java.nio.channels.FileChannel.open(tmp, java.nio.file.StandardOpenOption.WRITE)) {
                ch.force(true);
            }
            Files.move(tmp, dir.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + dir.resolve(name) + ": " + e.getMessage(), e);
        }
    }

    private static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p)) {
            return;
        }
        try (Stream<Path> all = Files.walk(p)) {
            for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
