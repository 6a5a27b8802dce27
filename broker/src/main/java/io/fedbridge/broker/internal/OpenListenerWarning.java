package io.fedbridge.broker.internal;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The start-up warning of a broker that lets anyone in over the network: no authentication, no authorization
 * ({@code SecurityConfig} open), and a listener bound to an address other hosts can reach. Loopback listeners and
 * {@code vm://} stay quiet: only processes of the same host (or JVM) can use them.
 */
public final class OpenListenerWarning {

    private OpenListenerWarning() {
    }

    /** The warning for one bound listener, or null if there is nothing to warn about. */
    public static String of(String broker, String listener, SocketAddress bound, boolean securityOpen) {
        if (!securityOpen || !(bound instanceof InetSocketAddress a) || a.getAddress() == null
                || a.getAddress().isLoopbackAddress()) {
            return null;
        }
        String reach = a.getAddress().isAnyLocalAddress() ? "every network interface" : a.getAddress().getHostAddress();
        return "broker " + broker + ": listener " + listener + " accepts connections from other hosts (bound to " + reach
                + ") without authentication or authorization: anyone who can reach it may send, consume and bridge. "
                + "Configure security (users, authorization), or listen on 127.0.0.1";
    }
}
