package io.fedbridge.core;

import java.util.HashMap;
import java.util.Map;

/** The frame commands of STOMP 1.2, client and server. */
public enum StompCommand {
    // client frames
    CONNECT, STOMP, SEND, SUBSCRIBE, UNSUBSCRIBE, ACK, NACK, BEGIN, COMMIT, ABORT, DISCONNECT,
    // server frames
    CONNECTED, MESSAGE, RECEIPT, ERROR;

    private static final Map<String, StompCommand> BY_NAME = new HashMap<>();

    static {
        for (StompCommand c : values()) {
            BY_NAME.put(c.name(), c);
        }
    }

    /** Returns the command with that exact (upper-case) name, or {@code null} if there is none. */
    public static StompCommand lookup(String name) {
        return BY_NAME.get(name);
    }

    /** True for CONNECT, STOMP and CONNECTED, whose headers STOMP 1.2 does not escape. */
    public boolean isConnectFrame() {
        return this == CONNECT || this == STOMP || this == CONNECTED;
    }
}
