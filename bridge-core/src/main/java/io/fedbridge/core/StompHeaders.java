package io.fedbridge.core;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;

/**
 * The headers of a frame, in wire order. STOMP 1.2 allows a header to repeat; the first occurrence
 * wins ({@link #get}). Not thread-safe: a frame belongs to one thread at a time.
 */
public final class StompHeaders {

    /** Header names used by STOMP 1.2 itself. */
    public static final String ACCEPT_VERSION = "accept-version";
    public static final String ACK = "ack";
    public static final String CONTENT_LENGTH = "content-length";
    public static final String CONTENT_TYPE = "content-type";
    public static final String DESTINATION = "destination";
    public static final String HEART_BEAT = "heart-beat";
    public static final String HOST = "host";
    public static final String ID = "id";
    public static final String LOGIN = "login";
    public static final String MESSAGE = "message";
    public static final String MESSAGE_ID = "message-id";
    public static final String PASSCODE = "passcode";
    public static final String RECEIPT = "receipt";
    public static final String RECEIPT_ID = "receipt-id";
    public static final String SERVER = "server";
    public static final String SESSION = "session";
    public static final String SUBSCRIPTION = "subscription";
    public static final String TRANSACTION = "transaction";
    public static final String VERSION = "version";

    /** Headers shared with ActiveMQ and other brokers, and fedbridge's own. */
    public static final String PERSISTENT = "persistent";
    public static final String PRIORITY = "priority";
    public static final String EXPIRES = "expires";
    public static final String SELECTOR = "selector";
    public static final String PREFETCH = "prefetch-size";
    public static final String CONSUMER_PRIORITY = "consumer-priority";
    public static final String REDELIVERY_COUNT = "redelivery-count";
    public static final String REDELIVERED = "redelivered";
    public static final String REPLY_TO = "reply-to";
    public static final String CORRELATION_ID = "correlation-id";
    public static final String TIMESTAMP = "timestamp";

    private String[] names;
    private String[] values;
    private int size;

    public StompHeaders() {
        this(8);
    }

    public StompHeaders(int capacity) {
        names = new String[Math.max(capacity, 2)];
        values = new String[names.length];
    }

    public static StompHeaders of(String... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("namesAndValues must be pairs, but had " + namesAndValues.length + " entries");
        }
        StompHeaders h = new StompHeaders(namesAndValues.length / 2);
        for (int i = 0; i < namesAndValues.length; i += 2) {
            h.add(namesAndValues[i], namesAndValues[i + 1]);
        }
        return h;
    }

    /** The first value of {@code name}, or {@code null}. */
    public String get(String name) {
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                return values[i];
            }
        }
        return null;
    }

    public String get(String name, String defaultValue) {
        String v = get(name);
        return v == null ? defaultValue : v;
    }

    public boolean contains(String name) {
        return get(name) != null;
    }

    /** Appends a header, keeping any earlier one of the same name (which then wins). */
    public StompHeaders add(String name, String value) {
        if (name == null || value == null) {
            throw new IllegalArgumentException("header name and value must not be null, but were " + name + "=" + value);
        }
        if (size == names.length) {
            names = Arrays.copyOf(names, size * 2);
            values = Arrays.copyOf(values, size * 2);
        }
        names[size] = name;
        values[size] = value;
        size++;
        return this;
    }

    /** Replaces every occurrence of {@code name} with one header, in the place of the first. */
    public StompHeaders set(String name, String value) {
        if (value == null) {
            remove(name);
            return this;
        }
        for (int i = 0; i < size; i++) {
            if (names[i].equals(name)) {
                values[i] = value;
                removeFrom(name, i + 1);
                return this;
            }
        }
        return add(name, value);
    }

    /** Removes every occurrence of {@code name}; returns the first value removed, or null. */
    public String remove(String name) {
        String first = get(name);
        if (first != null) {
            removeFrom(name, 0);
        }
        return first;
    }

    private void removeFrom(String name, int from) {
        int w = from;
        for (int r = from; r < size; r++) {
            if (!names[r].equals(name)) {
                names[w] = names[r];
                values[w] = values[r];
                w++;
            }
        }
        for (int i = w; i < size; i++) {
            names[i] = null;
            values[i] = null;
        }
        size = w;
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }

    public String name(int index) {
        return names[index];
    }

    public String value(int index) {
        return values[index];
    }

    public void forEach(BiConsumer<String, String> action) {
        for (int i = 0; i < size; i++) {
            action.accept(names[i], values[i]);
        }
    }

    public StompHeaders copy() {
        StompHeaders h = new StompHeaders(size + 4);
        System.arraycopy(names, 0, h.names, 0, size);
        System.arraycopy(values, 0, h.values, 0, size);
        h.size = size;
        return h;
    }

    /** The headers as a map, first occurrence winning, in wire order. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < size; i++) {
            m.putIfAbsent(names[i], values[i]);
        }
        return m;
    }

    public List<String> names() {
        List<String> l = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            l.add(names[i]);
        }
        return l;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("{");
        for (int i = 0; i < size; i++) {
            if (i > 0) {
                sb.append(", ");
            }
            sb.append(names[i]).append('=');
            sb.append(isSecret(names[i]) ? "*****" : values[i]);
        }
        return sb.append('}').toString();
    }

    static boolean isSecret(String name) {
        String n = name.toLowerCase(java.util.Locale.ROOT);
        return n.endsWith("passcode") || n.endsWith("password") || n.endsWith("secret");
    }
}
