package io.fedbridge.core;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message to send: destination ({@code /queue/NAME}, {@code /topic/NAME}, …), headers and body.
 * Immutable; the body array is not copied, do not change it after building.
 *
 * <pre>{@code
 * Message m = Message.builder("/queue/orders").body("hello").persistent(true).header("type", "order").build();
 * }</pre>
 */
public record Message(String destination, Map<String, String> headers, byte[] body) {

    public Message {
        if (destination == null || destination.isBlank()) {
            throw new IllegalArgumentException("destination must not be blank, but was '" + destination + "'");
        }
        if (headers != null) {
            headers.forEach((k, v) -> {
                if (k == null || v == null) {
                    throw new IllegalArgumentException("header names and values must not be null, but header '" + k + "' was " + v);
                }
            });
        }
        headers = headers == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        body = body == null ? new byte[0] : body;
    }

    public static Builder builder(String destination) {
        return new Builder(destination);
    }

    public static Message of(String destination, String body) {
        return builder(destination).body(body).build();
    }

    public String bodyAsString() {
        return new String(body, StandardCharsets.UTF_8);
    }

    public boolean isPersistent() {
        return "true".equals(headers.get(StompHeaders.PERSISTENT));
    }

    public static final class Builder {
        private final String destination;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private byte[] body;

        private Builder(String destination) {
            this.destination = destination;
        }

        public Builder body(byte[] body) {
            this.body = body;
            return this;
        }

        public Builder body(String body) {
            this.body = body.getBytes(StandardCharsets.UTF_8);
            return this;
        }

        public Builder header(String name, String value) {
            if (name == null || value == null) {
                throw new IllegalArgumentException("header names and values must not be null, but header '" + name + "' was " + value);
            }
            headers.put(name, value);
            return this;
        }

        public Builder headers(Map<String, String> all) {
            all.forEach(this::header);
            return this;
        }

        public Builder persistent(boolean persistent) {
            return header(StompHeaders.PERSISTENT, Boolean.toString(persistent));
        }

        /** 0-9, higher first. */
        public Builder priority(int priority) {
            if (priority < 0 || priority > 9) {
                throw new IllegalArgumentException("priority must be 0-9, but was " + priority);
            }
            return header(StompHeaders.PRIORITY, Integer.toString(priority));
        }

        public Builder contentType(String contentType) {
            return header(StompHeaders.CONTENT_TYPE, contentType);
        }

        public Message build() {
            return new Message(destination, headers, body);
        }
    }
}
