package io.fedbridge.broker.store.internal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;

/** Opens the channels the journal writes through; tests substitute one that fails like a full disk. */
@FunctionalInterface
public interface ChannelOpener {

    ChannelOpener DEFAULT = FileChannel::open;

    FileChannel open(Path path, OpenOption... options) throws IOException;
}
