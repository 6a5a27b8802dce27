package io.fedbridge.ha.internal;

import io.fedbridge.broker.store.internal.JournalFormat;
import io.fedbridge.broker.store.internal.JournalRecord;
import java.nio.ByteBuffer;

/**
 * The replication link's wire format. A backup CONNECTs to the primary's client listener with the federation right
 * and {@code fedbridge-ha-backup: GROUP}, then SUBSCRIBEs to {@code /fedbridge.ha/GROUP}. The primary answers with
 * MESSAGE frames, one per store operation (a transaction's in one GROUP record, applied by the backup as one unit of
 * its journal), each carrying the primary's epoch; the backup answers with ACK frames
 * saying how much it has stored. A record's body is its journal encoding: one type byte, then the payload.
 *
 * <pre>
 * MESSAGE  ha-epoch:E  ha-index:N      a live record, index N in the primary's stream (strictly increasing)
 * MESSAGE  ha-epoch:E  ha-catchup:true a record of the primary's state as it was when the backup joined
 * MESSAGE  ha-epoch:E  ha-index:N  ha-op:caught-up   every record of the state was sent before this one
 * ACK      ha-index:N  ha-count:C      the backup stored every live record up to N and C records in all
 * </pre>
 */
public final class Replication {

    public static final String DESTINATION_PREFIX = "/fedbridge.ha/";
    public static final String EPOCH = "ha-epoch";
    public static final String INDEX = "ha-index";
    public static final String COUNT = "ha-count";
    public static final String CATCHUP = "ha-catchup";
    public static final String OP = "ha-op";
    /** The backup has every record the state held when it joined: its acknowledgements now hold receipts up. */
    public static final String OP_CAUGHT_UP = "caught-up";
    /**
     * The backup has every record that any receipt completed without it: a complete copy, which may be promoted. Sent
     * once its acknowledgements pass the last record numbered when it started to count, never before.
     */
    public static final String OP_READY = "ready";
    /** CONNECT: the backup's name and the highest epoch it has seen. */
    public static final String MEMBER = "fedbridge-ha-member";
    public static final String MEMBER_EPOCH = "fedbridge-ha-epoch";
    private static final ThreadLocal<JournalFormat.PayloadBuffer> BUFFERS = ThreadLocal.withInitial(JournalFormat.PayloadBuffer::new);

    private Replication() {
    }

    /** A record's body on the wire. */
    public static byte[] encode(JournalRecord record) {
        JournalFormat.PayloadBuffer buf = BUFFERS.get();
        buf.clear();
        JournalFormat.encodePayload(record, buf);
        byte[] body = new byte[buf.size() + 1];
        body[0] = record.type();
        System.arraycopy(buf.array(), 0, body, 1, buf.size());
        return body;
    }

    /** The record a body carries. */
    public static JournalRecord decode(byte[] body) {
        if (body == null || body.length == 0) {
            throw new IllegalArgumentException("replication record must have a body, but was empty");
        }
        try {
            return JournalFormat.decode(body[0], ByteBuffer.wrap(body, 1, body.length - 1).slice());
        } catch (JournalFormat.FormatException e) {
            throw new IllegalArgumentException("replication record does not parse: " + e.getMessage(), e);
        }
    }
}
