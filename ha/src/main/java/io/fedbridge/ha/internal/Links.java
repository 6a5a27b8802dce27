package io.fedbridge.ha.internal;

import io.netty.channel.ChannelHandler;
import java.util.function.Supplier;

/** Creates a backup's {@link ReplicationLink} (package-private) for the member. */
public final class Links {
    private Links() {
    }

    public static ChannelHandler newLink(ReplicationHub hub, String member, String group, Supplier<ReplicatingStore.Snapshot> state) {
        return new ReplicationLink(hub, member, group, state);
    }
}
