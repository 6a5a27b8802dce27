package io.fedbridge.broker;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A message as a {@link MessageStore} keeps it.
 *
 * @param sequence         broker-wide, strictly increasing; orders messages of one key
 * @param messageId        the broker's {@code message-id}
 * @param destination      where it was sent ({@code /queue/a}, {@code /topic/b})
 * @param headers          the headers as sent (without receipt/transaction/content-length)
 * @param body             the body; shared, never modified
 * @param redeliveryCount  deliveries that were not acknowledged so far
 */
public record StoredMessage(long sequence, String messageId, String destination, Map<String, String> headers,
                            byte[] body, int redeliveryCount) {

    public StoredMessage {
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
    }

    public StoredMessage withRedeliveryCount(int count) {
        return new StoredMessage(sequence, messageId, destination, headers, body, count);
    }
}
