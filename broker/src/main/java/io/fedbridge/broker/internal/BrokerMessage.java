package io.fedbridge.broker.internal;

import io.fedbridge.broker.StoredMessage;
import io.fedbridge.core.StompHeaders;

/**
 * A message inside the broker. Immutable and shared between every subscription it is routed to; per-
 * delivery state lives in {@link QueueEntry}.
 */
final class BrokerMessage {

    final long sequence;
    final String messageId;
    final String destination;
    /** Headers as sent, minus receipt/transaction/content-length; never modified after construction. */
    final StompHeaders headers;
    final byte[] body;
    final int priority;
    final long expires;
    /** When it may be delivered ({@link ScheduledDelivery}), epoch ms; 0 = at once. */
    final long deliverAt;
    final boolean persistent;
    final int size;
    /** The federation broker path it came along, or null: read once here, consulted on every routing decision. */
    final String brokerPath;
    /** The federation id ({@code fedbridge-id}), or null. */
    final String federationId;
    /** Its message group ({@value MessageGroups#GROUP_ID}), or null. */
    final String groupId;
    /** {@value MessageGroups#GROUP_SEQ} is -1: the last message of its group. */
    final boolean closesGroup;
    /** The fingerprint of {@link #federationId}, taken on first use (racy but idempotent: any thread gets the same). */
    private BoundedIdSet.Fingerprint fingerprint;

    BrokerMessage(long sequence, String messageId, String destination, StompHeaders headers, byte[] body) {
        this.sequence = sequence;
        this.messageId = messageId;
        this.destination = destination;
        this.headers = headers;
        this.body = body;
        // one pass over the headers; the first occurrence of a repeated header wins, as in StompHeaders.get
        String priorityValue = null;
        String expiresValue = null;
        String deliverAtValue = null;
        String persistentValue = null;
        String path = null;
        String fedId = null;
        String group = null;
        String groupSeq = null;
        int s = body.length + 64;
        for (int i = headers.size() - 1; i >= 0; i--) {
            String name = headers.name(i);
            String value = headers.value(i);
            s += name.length() + value.length() + 32;
            switch (name) {
                case StompHeaders.PRIORITY -> priorityValue = value;
                case StompHeaders.EXPIRES -> expiresValue = value;
                case ScheduledDelivery.HEADER -> deliverAtValue = value;
                case StompHeaders.PERSISTENT -> persistentValue = value;
                case io.fedbridge.core.FederationHeaders.BROKER_PATH -> path = value;
                case io.fedbridge.core.FederationHeaders.FEDERATION_ID -> fedId = value;
                case MessageGroups.GROUP_ID -> group = value;
                case MessageGroups.GROUP_SEQ -> groupSeq = value;
                default -> {
                }
            }
        }
        this.priority = parsePriority(priorityValue);
        this.expires = parseLong(expiresValue);
        this.deliverAt = ScheduledDelivery.parse(deliverAtValue);
        this.persistent = "true".equals(persistentValue);
        this.brokerPath = path;
        this.federationId = fedId;
        this.groupId = group == null || group.isEmpty() ? null : group;
        this.closesGroup = groupSeq != null && groupSeq.trim().equals("-1");
        this.size = s;
    }

    static BrokerMessage fromStored(StoredMessage m) {
        StompHeaders h = new StompHeaders(m.headers().size() + 2);
        m.headers().forEach(h::add);
        return new BrokerMessage(m.sequence(), m.messageId(), m.destination(), h, m.body());
    }

    StoredMessage toStored(int redeliveryCount) {
        return new StoredMessage(sequence, messageId, destination, headers.toMap(), body, redeliveryCount);
    }

    boolean isExpired(long now) {
        return expires > 0 && now >= expires;
    }

    private static int parsePriority(String v) {
        if (v == null) {
            return 4;
        }
        try {
            int p = Integer.parseInt(v.trim());
            return Math.max(0, Math.min(9, p));
        } catch (NumberFormatException e) {
            return 4;
        }
    }

    private static long parseLong(String v) {
        if (v == null) {
            return 0;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Hands over the fingerprint of the federation id, taken already (before the message is shared). */
    void fingerprint(BoundedIdSet.Fingerprint f) {
        fingerprint = f;
    }

    /** The fingerprint of the federation id (which must not be null). */
    BoundedIdSet.Fingerprint fingerprint() {
        BoundedIdSet.Fingerprint f = fingerprint;
        if (f == null) {
            f = BoundedIdSet.fingerprint(federationId);
            fingerprint = f;
        }
        return f;
    }
}
