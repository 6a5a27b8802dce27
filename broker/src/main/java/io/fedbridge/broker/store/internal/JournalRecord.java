package io.fedbridge.broker.store.internal;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;

/** One journal record, as written and as read back. */
public sealed interface JournalRecord {

    /** The record's type byte in the journal. */
    byte type();

    /** Stores {@code message} under {@code key}; a later ADD of the same key and sequence replaces it. */
    record Add(String key, StoredMessage message) implements JournalRecord {
        public static final byte TYPE = 1;

        @Override
        public byte type() {
            return TYPE;
        }
    }

    /**
     * Removes the message {@code sequence} stored under {@code key}; {@code consumedHere} when a local consumer took it
     * (not a bridge, which handed it on): replay reports that, so the broker's dedupe knows it after a crash.
     */
    record Remove(String key, long sequence, boolean consumedHere) implements JournalRecord {
        public static final byte TYPE = 2;
        public static final byte TYPE_CONSUMED_HERE = 6;

        @Override
        public byte type() {
            return consumedHere ? TYPE_CONSUMED_HERE : TYPE;
        }
    }

    /** Sets the redelivery count of the message {@code sequence} stored under {@code key}. */
    record Redelivery(String key, long sequence, int count) implements JournalRecord {
        public static final byte TYPE = 3;

        @Override
        public byte type() {
            return TYPE;
        }
    }

    /** Saves (or replaces) a durable subscription's definition. */
    record SubscriptionSave(DurableSubscriptionInfo info) implements JournalRecord {
        public static final byte TYPE = 4;

        @Override
        public byte type() {
            return TYPE;
        }
    }

    /** Forgets a durable subscription and every message stored under its key so far. */
    record SubscriptionRemove(String key) implements JournalRecord {
        public static final byte TYPE = 5;

        @Override
        public byte type() {
            return TYPE;
        }
    }
}
