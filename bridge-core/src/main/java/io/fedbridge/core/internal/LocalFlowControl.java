package io.fedbridge.core.internal;

import io.netty.channel.Channel;
import io.netty.channel.local.LocalChannel;
import java.net.SocketAddress;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Back-pressure for {@code vm://} connections. Netty's local channels hand every write straight to the
 * peer's inbound queue, so a broker that stops reading a TCP producer would not slow an in-JVM one at all.
 * Here the broker side marks a local connection paused and the client side treats it as not writable until
 * the broker resumes it, exactly as a full socket would.
 */
public final class LocalFlowControl {

    private static final Set<SocketAddress> PAUSED = ConcurrentHashMap.newKeySet();
    private static final Map<SocketAddress, Runnable> RESUMERS = new ConcurrentHashMap<>();

    private LocalFlowControl() {
    }

    /** Broker side: stop the client at the other end of {@code serverSide} from writing. */
    public static void pause(Channel serverSide) {
        if (serverSide instanceof LocalChannel && serverSide.remoteAddress() != null) {
            PAUSED.add(serverSide.remoteAddress());
        }
    }

    /** Broker side: let it write again. */
    public static void resume(Channel serverSide) {
        if (serverSide instanceof LocalChannel && serverSide.remoteAddress() != null) {
            SocketAddress a = serverSide.remoteAddress();
            PAUSED.remove(a);
            Runnable r = RESUMERS.get(a);
            if (r != null) {
                r.run();
            }
        }
    }

    /** Client side: true while the broker has paused this connection. */
    static boolean isPaused(Channel clientSide) {
        return clientSide instanceof LocalChannel && !PAUSED.isEmpty() && PAUSED.contains(clientSide.localAddress());
    }

    /** Client side: {@code onResume} runs when the broker resumes this connection; forgotten on close. */
    static void register(Channel clientSide, Runnable onResume) {
        if (clientSide instanceof LocalChannel) {
            SocketAddress a = clientSide.localAddress();
            RESUMERS.put(a, onResume);
            clientSide.closeFuture().addListener(f -> {
                RESUMERS.remove(a);
                PAUSED.remove(a);
            });
        }
    }
}
