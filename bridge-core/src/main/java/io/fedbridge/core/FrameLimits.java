package io.fedbridge.core;

/**
 * Limits a decoder enforces on every incoming frame. A frame over any limit is answered with an ERROR
 * frame naming the limit, and only its connection is closed.
 *
 * @param maxFrameSize     largest frame, command + headers + body, in bytes (default 10 MiB)
 * @param maxHeaders       most headers in one frame (default 1000)
 * @param maxHeaderLength  longest single header line ({@code name:value}) in bytes (default 64 KiB)
 */
public record FrameLimits(int maxFrameSize, int maxHeaders, int maxHeaderLength) {

    public static final int DEFAULT_MAX_FRAME_SIZE = 10 * 1024 * 1024;
    public static final int DEFAULT_MAX_HEADERS = 1000;
    public static final int DEFAULT_MAX_HEADER_LENGTH = 64 * 1024;

    public FrameLimits {
        if (maxFrameSize < 256) {
            throw new IllegalArgumentException("maxFrameSize must be at least 256 bytes, but was " + maxFrameSize);
        }
        if (maxHeaders < 1) {
            throw new IllegalArgumentException("maxHeaders must be at least 1, but was " + maxHeaders);
        }
        if (maxHeaderLength < 64) {
            throw new IllegalArgumentException("maxHeaderLength must be at least 64 bytes, but was " + maxHeaderLength);
        }
    }

    public static FrameLimits ofDefaults() {
        return new FrameLimits(DEFAULT_MAX_FRAME_SIZE, DEFAULT_MAX_HEADERS, DEFAULT_MAX_HEADER_LENGTH);
    }
}
