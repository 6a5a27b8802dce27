package io.fedbridge.core;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What to subscribe to and how.
 *
 * @param destination   {@code /queue/NAME}, {@code /topic/NAME} (wildcards {@code *} and {@code >} on topics)
 * @param ackMode       ack mode, default {@link AckMode#AUTO}
 * @param selector      a JMS SQL-92 selector over headers, or null
 * @param prefetch      most unacknowledged messages the broker may send at once; 0 = broker default
 * @param extraHeaders  further SUBSCRIBE headers (e.g. {@code durable-subscription-name})
 */
public record SubscriptionRequest(String destination, AckMode ackMode, String selector, int prefetch,
                                  Map<String, String> extraHeaders) {

    public SubscriptionRequest {
        if (destination == null || destination.isBlank()) {
            throw new IllegalArgumentException("destination must not be blank, but was '" + destination + "'");
        }
        if (prefetch < 0) {
            throw new IllegalArgumentException("prefetch must be >= 0, but was " + prefetch);
        }
        ackMode = ackMode == null ? AckMode.AUTO : ackMode;
        // compact: a bridge holds one request per network subscription, by the ten thousand
        extraHeaders = extraHeaders == null ? Map.of() : io.fedbridge.core.internal.CompactMap.copyOf(extraHeaders);
    }

    public static SubscriptionRequest of(String destination) {
        return builder(destination).build();
    }

    public static Builder builder(String destination) {
        return new Builder(destination);
    }

    public Builder toBuilder() {
        Builder b = new Builder(destination).ackMode(ackMode).selector(selector).prefetch(prefetch);
        b.extra.putAll(extraHeaders);
        return b;
    }

    public static final class Builder {
        private final String destination;
        private AckMode ackMode = AckMode.AUTO;
        private String selector;
        private int prefetch;
        private final Map<String, String> extra = new LinkedHashMap<>();

        private Builder(String destination) {
            this.destination = destination;
        }

        public Builder ackMode(AckMode ackMode) {
            this.ackMode = ackMode;
            return this;
        }

        public Builder selector(String selector) {
            this.selector = selector;
            return this;
        }

        public Builder prefetch(int prefetch) {
            this.prefetch = prefetch;
            return this;
        }

        public Builder header(String name, String value) {
            extra.put(name, value);
            return this;
        }

        public SubscriptionRequest build() {
            return new SubscriptionRequest(destination, ackMode, selector, prefetch, extra);
        }
    }
}
