package io.fedbridge.broker.store;

import io.fedbridge.broker.MessageStore;
import io.fedbridge.broker.StoredMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Messages whose content follows from their sequence, so a test can check what comes back. */
final class TestMessages {

    private TestMessages() {
    }

    static StoredMessage message(long sequence, String destination, int bodySize) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("persistent", "true");
        headers.put("x-seq", Long.toString(sequence));
        headers.put("x-unicode", "grüße ✓");
        return new StoredMessage(sequence, "ID:test-" + sequence, destination, headers, body(sequence, bodySize), 0);
    }

    static StoredMessage message(long sequence, String destination) {
        return message(sequence, destination, 100 + (int) (sequence * 37 % 900));
    }

    static byte[] body(long sequence, int size) {
        byte[] b = new byte[size];
        new SplittableRandom(sequence).nextBytes(b);
        return b;
    }

    /** A message whose body size also follows from its sequence (for the crash test). */
    static StoredMessage randomSized(long sequence, String destination) {
        return message(sequence, destination, 64 + new SplittableRandom(sequence * 31).nextInt(3000));
    }

    record Stored(String key, StoredMessage message) {
    }

    static List<Stored> recoverAll(MessageStore store) {
        List<Stored> out = new ArrayList<>();
        store.recover((k, m) -> out.add(new Stored(k, m)));
        return out;
    }
}
