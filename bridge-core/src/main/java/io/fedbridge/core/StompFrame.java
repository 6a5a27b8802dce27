package io.fedbridge.core;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One STOMP frame: a command, headers and a body (possibly containing NUL bytes). The body array is
 * shared, not copied: treat it as read-only once the frame is handed over.
 */
public final class StompFrame {

    private static final byte[] EMPTY = new byte[0];

    private final StompCommand command;
    private final StompHeaders headers;
    private final byte[] body;

    public StompFrame(StompCommand command, StompHeaders headers, byte[] body) {
        this.command = Objects.requireNonNull(command, "command");
        this.headers = headers == null ? new StompHeaders() : headers;
        this.body = body == null ? EMPTY : body;
    }

    public StompFrame(StompCommand command, StompHeaders headers) {
        this(command, headers, EMPTY);
    }

    public static StompFrame of(StompCommand command, String... headerNamesAndValues) {
        return new StompFrame(command, StompHeaders.of(headerNamesAndValues), EMPTY);
    }

    public StompCommand command() {
        return command;
    }

    public StompHeaders headers() {
        return headers;
    }

    public byte[] body() {
        return body;
    }

    public String header(String name) {
        return headers.get(name);
    }

    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /** A new frame with this body and a copy of the headers. */
    public StompFrame withCommand(StompCommand newCommand) {
        return new StompFrame(newCommand, headers.copy(), body);
    }

    @Override
    public String toString() {
        return command + headers.toString() + (body.length == 0 ? "" : "[" + body.length + " bytes]");
    }
}
