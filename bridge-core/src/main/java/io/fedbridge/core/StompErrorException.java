package io.fedbridge.core;

/** The peer answered with a STOMP ERROR frame; {@link #frame()} is that frame. */
public class StompErrorException extends StompException {
    private static final long serialVersionUID = 1L;

    private final transient StompFrame frame;

    public StompErrorException(String context, StompFrame frame) {
        super(context + ": " + describe(frame));
        this.frame = frame;
    }

    public StompFrame frame() {
        return frame;
    }

    /** The ERROR frame's {@code message} header, the short reason. */
    public String errorMessage() {
        return frame == null ? null : frame.header(StompHeaders.MESSAGE);
    }

    private static String describe(StompFrame f) {
        if (f == null) {
            return "ERROR";
        }
        String msg = f.header(StompHeaders.MESSAGE);
        String body = f.body().length == 0 ? "" : f.bodyAsString().trim();
        if (msg == null) {
            return body.isEmpty() ? "ERROR" : body;
        }
        return body.isEmpty() || body.equals(msg) ? msg : msg + " (" + body + ")";
    }
}
