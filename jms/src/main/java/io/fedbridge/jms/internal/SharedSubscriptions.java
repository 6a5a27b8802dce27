package io.fedbridge.jms.internal;

import io.fedbridge.failover.FailoverSubscription;
import jakarta.jms.IllegalStateException;
import jakarta.jms.JMSException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A connection's shared subscriptions (JMS 8.3.2, 8.3.4): one broker subscription per name, its consumers pulling from
 * it in competition. A fedbridge topic subscription has one consumer, and a client ID is held by one live connection,
 * so with a client ID every consumer of a shared subscription is on this connection: sharing it here is sharing it
 * everywhere. Non-durable and durable subscriptions have separate names. Thread-safe.
 */
final class SharedSubscriptions {

    interface Subscribe {
        FailoverSubscription subscribe() throws JMSException;
    }

    private static final class Entry {
        final String topic;
        final String selector;
        final FailoverSubscription subscription;
        int consumers;

        Entry(String topic, String selector, FailoverSubscription subscription) {
            this.topic = topic;
            this.selector = selector;
            this.subscription = subscription;
        }
    }

    private final Map<String, Entry> entries = new HashMap<>();

    static String key(boolean durable, String name) {
        return (durable ? "durable:" : "nondurable:") + name;
    }

    /** The subscription for one more consumer, made if it is the first. */
    synchronized FailoverSubscription acquire(String key, String topic, String selector, Subscribe subscribe) throws JMSException {
        Entry e = entries.get(key);
        if (e != null) {
            if (!e.topic.equals(topic) || !Objects.equals(e.selector, selector)) {
                throw new IllegalStateException("shared subscription '" + key.substring(key.indexOf(':') + 1) + "' has active "
                        + "consumers on " + e.topic + (e.selector == null ? "" : " with selector '" + e.selector + "'")
                        + "; a consumer on " + topic + (selector == null ? "" : " with selector '" + selector + "'")
                        + " cannot join it (JMS 8.3.2, 8.3.4)");
            }
        } else {
            e = new Entry(topic, selector, subscribe.subscribe());
            entries.put(key, e);
        }
        e.consumers++;
        return e.subscription;
    }

    /** One consumer fewer: the broker subscription ends with the last (a durable one stays on the broker). */
    void release(String key) {
        FailoverSubscription end = null;
        synchronized (this) {
            Entry e = entries.get(key);
            if (e != null && --e.consumers == 0) {
                entries.remove(key);
                end = e.subscription;
            }
        }
        if (end != null) {
            end.unsubscribe();
        }
    }

    synchronized boolean isActive(String key) {
        return entries.containsKey(key);
    }
}
