package io.fedbridge.broker.store.internal;

import io.fedbridge.broker.MessageStore.DurableSubscriptionInfo;
import io.fedbridge.broker.StoredMessage;
import java.util.List;

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

    /**
     * Records that become durable all together or not at all (a STOMP transaction's sends and acks): written as one
     * record with one CRC, so a write torn by a crash leaves none of them. Only ADD, REMOVE and REDELIVERY records may
     * be grouped; replay and the index see the grouped records one by one, each at its own place inside the group.
     */
    record Group(List<JournalRecord> records) implements JournalRecord {
        public static final byte TYPE = 7;

        public Group {
            records = List.copyOf(records);
            if (records.isEmpty()) {
                throw new IllegalArgumentException("records must not be empty, but was empty");
            }
            for (JournalRecord r : records) {
                if (!(r instanceof Add || r instanceof Remove || r instanceof Redelivery)) {
                    throw new IllegalArgumentException("records must be ADD, REMOVE or REDELIVERY records, but held " + r);
                }
            }
        }

        @Override
        public byte type() {
            return TYPE;
        }
    }
}
