package io.fedbridge.core.internal;

/**
 * What {@link StompFrameDecoder} emits instead of a frame when the input is not valid STOMP. The handler
 * answers with an ERROR frame carrying {@link #reason()} and closes the connection.
 *
 * @param reason  what was wrong, for a human: names the command, header or limit
 * @param receipt the {@code receipt} header of the bad frame if it could be read, else null
 */
public record MalformedFrame(String reason, String receipt) {
}
