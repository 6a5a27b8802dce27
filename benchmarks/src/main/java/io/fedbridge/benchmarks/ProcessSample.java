package io.fedbridge.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

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

    /** Bytes of the regular files under {@code dir}; a file deleted while walking (a compacted journal) is skipped. */
    static long bytesUnder(Path dir) {
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        long[] sum = {0};
        try {
            Files.walkFileTree(dir, new java.nio.file.SimpleFileVisitor<>() {
                @Override
                public java.nio.file.FileVisitResult visitFile(Path file, java.nio.file.attribute.BasicFileAttributes attrs) {
                    if (attrs.isRegularFile()) {
                        sum[0] += attrs.size();
                    }
                    return java.nio.file.FileVisitResult.CONTINUE;
                }

                @Override
                public java.nio.file.FileVisitResult visitFileFailed(Path file, IOException e) {
                    return java.nio.file.FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            // the directory itself went away: what was counted stands
        }
        return sum[0];
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
