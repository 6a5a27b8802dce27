package io.fedbridge.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The free space of the disk that holds a broker's data directory: what {@link ResourceLimits#minFreeDisk()} is
 * compared with. The default asks the file system; a test (or an embedder with quotas of its own) may supply
 * another. Called about once a second from one of the broker's I/O threads: it must be quick and thread-safe.
 */
@FunctionalInterface
public interface DiskSpace {

    /**
     * Bytes this JVM may still write on the file system that holds {@code directory}.
     *
     * @throws IOException if it cannot be found out (the broker then logs it and keeps its last verdict)
     */
    long usableBytes(Path directory) throws IOException;

    /** {@link java.nio.file.FileStore#getUsableSpace()} of the directory's file store. */
    static DiskSpace ofFileSystem() {
        return FileSystemSpace.INSTANCE;
    }
}

/** The default {@link DiskSpace}: a singleton, so that configurations using it compare equal. */
enum FileSystemSpace implements DiskSpace {
    INSTANCE;

    @Override
    public long usableBytes(Path directory) throws IOException {
        return Files.getFileStore(directory).getUsableSpace();
    }

    @Override
    public String toString() {
        return "file system";
    }
}
