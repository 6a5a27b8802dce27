package io.fedbridge.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * What a broker JVM holds at one instant: heap in use (no GC forced, so it saws between collections), open file
 * descriptors, live threads, and bytes on disk under its data directory. Taken in the child, parsed in the parent.
 *
 * @param heap    bytes of heap in use
 * @param fds     open file descriptors, -1 where the OS does not tell
 * @param threads live threads
 * @param disk    bytes of regular files under the data directory, 0 without one
 */
record ProcessSample(long heap, long fds, int threads, long disk) {

    static ProcessSample take(Path dataDirectory) {
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        long fds = ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u
                ? u.getOpenFileDescriptorCount() : -1;
        int threads = ManagementFactory.getThreadMXBean().getThreadCount();
        return new ProcessSample(heap, fds, threads, dataDirectory == null ? 0 : bytesUnder(dataDirectory));
    }

    static long bytesUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    return 0; // deleted while we walked (a compacted journal file)
                }
            }).sum();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    String line() {
        return "SAMPLE heap=" + heap + " fds=" + fds + " threads=" + threads + " disk=" + disk;
    }

    /** Parses what follows {@code SAMPLE} in {@link #line()}. */
    static ProcessSample parse(String fields) {
        Map<String, String> m = new HashMap<>();
        for (String kv : fields.trim().split("\\s+")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        try {
            return new ProcessSample(Long.parseLong(m.get("heap")), Long.parseLong(m.get("fds")),
                    Integer.parseInt(m.get("threads")), Long.parseLong(m.get("disk")));
        } catch (RuntimeException e) {
            throw new BenchmarkException("a broker's sample must be 'heap=N fds=N threads=N disk=N', but was '" + fields + "'", e);
        }
    }
}
