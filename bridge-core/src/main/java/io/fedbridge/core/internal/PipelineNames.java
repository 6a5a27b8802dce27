package io.fedbridge.core.internal;

/** Names of the handlers in every fedbridge STOMP pipeline, in order. */
public final class PipelineNames {
    public static final String TLS = "tls";
    /** HTTP, then WebSocket frames ({@code ws://}, {@code wss://}): {@link WebSockets}. */
    public static final String HTTP = "http-codec";
    public static final String HTTP_AGGREGATOR = "http-aggregator";
    public static final String WS_HANDSHAKE = "ws-handshake";
    public static final String WS_CODEC = "ws-codec";
    public static final String DECODER = "stomp-decoder";
    public static final String ENCODER = "stomp-encoder";
    public static final String HEART_BEAT = "heart-beat";
    public static final String HANDLER = "stomp-handler";

    private PipelineNames() {
    }
}
