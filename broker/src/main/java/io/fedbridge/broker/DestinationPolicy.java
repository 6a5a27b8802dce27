package io.fedbridge.broker;

/**
 * Limits and behaviour of the destinations matching {@link #pattern()}, after OpenMQ's destination
 * properties. Patterns use the destination wildcards ({@code /queue/orders.>}, {@code /topic/*.prices});
 * an exact name beats a wildcard, and a longer wildcard beats a shorter one. {@code -1} means unlimited.
 *
 * <table>
 * <caption>Scope of each limit</caption>
 * <tr><th>key</th><th>default</th><th>scope</th></tr>
 * <tr><td>maxNumMsgs</td><td>-1</td><td>per broker: pending + unacknowledged messages</td></tr>
 * <tr><td>maxTotalMsgBytes</td><td>-1</td><td>per broker: bytes of those messages</td></tr>
 * <tr><td>maxBytesPerMsg</td><td>-1</td><td>per broker: body size of one message</td></tr>
 * <tr><td>maxNumProducers</td><td>-1</td><td>per broker: connections that send to the destination</td></tr>
 * <tr><td>maxNumActiveConsumers</td><td>-1</td><td>federation: on a queue, the consumers of lowest federation-wide rank
 * (the earliest) are active, the others wait as backups (docs/cluster.md)</td></tr>
 * <tr><td>maxNumBackupConsumers</td><td>-1</td><td>federation: with maxNumActiveConsumers, consumers beyond both limits are
 * refused (ERROR naming the limits); -1 = any number of backups</td></tr>
 * <tr><td>consumerFlowLimit</td><td>1000</td><td>federation: cap on each subscription's prefetch</td></tr>
 * <tr><td>limitBehavior</td><td>REJECT_NEWEST</td><td>per broker</td></tr>
 * <tr><td>useDMQ</td><td>true</td><td>per broker: dead-letter to {@code /queue/DLQ}</td></tr>
 * <tr><td>maxRedeliveries</td><td>6</td><td>per broker: deliveries after the first before dead-lettering</td></tr>
 * <tr><td>localDeliveryPreferred</td><td>false</td><td>federation: forward only when no local consumer exists</td></tr>
 * <tr><td>isLocalOnly</td><td>false</td><td>federation: never forwarded over bridges</td></tr>
 * <tr><td>replicateFrom</td><td>none</td><td>per broker: keep a read-only replica of the queue of this name on the
 * broker at this URI (module {@code fedbridge-ha}; an exact {@code /queue/} pattern only; see docs/ha.md)</td></tr>
 * </table>
 */
public record DestinationPolicy(String pattern, long maxNumMsgs, long maxTotalMsgBytes, long maxBytesPerMsg,
                                int maxNumProducers, int maxNumActiveConsumers, int maxNumBackupConsumers,
                                int consumerFlowLimit, LimitBehavior limitBehavior, boolean useDMQ, int maxRedeliveries,
                                boolean localDeliveryPreferred, boolean isLocalOnly, String replicateFrom) {

    /** The name of the dead-letter queue. */
    public static final String DLQ = "/queue/DLQ";

    private static final DestinationPolicy DEFAULTS = builder(">").build();

    /** A policy without {@link #maxNumBackupConsumers()} (any number of backups). */
    public DestinationPolicy(String pattern, long maxNumMsgs, long maxTotalMsgBytes, long maxBytesPerMsg, int maxNumProducers,
                             int maxNumActiveConsumers, int consumerFlowLimit, LimitBehavior limitBehavior, boolean useDMQ,
                             int maxRedeliveries, boolean localDeliveryPreferred, boolean isLocalOnly, String replicateFrom) {
        this(pattern, maxNumMsgs, maxTotalMsgBytes, maxBytesPerMsg, maxNumProducers, maxNumActiveConsumers, -1,
                consumerFlowLimit, limitBehavior, useDMQ, maxRedeliveries, localDeliveryPreferred, isLocalOnly, replicateFrom);
    }

    /** A policy without {@link #replicateFrom()}. */
    public DestinationPolicy(String pattern, long maxNumMsgs, long maxTotalMsgBytes, long maxBytesPerMsg, int maxNumProducers,
                             int maxNumActiveConsumers, int consumerFlowLimit, LimitBehavior limitBehavior, boolean useDMQ,
                             int maxRedeliveries, boolean localDeliveryPreferred, boolean isLocalOnly) {
        this(pattern, maxNumMsgs, maxTotalMsgBytes, maxBytesPerMsg, maxNumProducers, maxNumActiveConsumers, consumerFlowLimit,
                limitBehavior, useDMQ, maxRedeliveries, localDeliveryPreferred, isLocalOnly, null);
    }

    public DestinationPolicy {
        if (pattern == null || !(pattern.startsWith("/queue/") || pattern.startsWith("/topic/")
                || pattern.startsWith("/temp-queue/") || pattern.startsWith("/temp-topic/") || pattern.equals(">"))) {
            throw new IllegalArgumentException("pattern must be a destination or wildcard such as /queue/orders.> (or '>' for all), but was '" + pattern + "'");
        }
        atLeastMinusOne("maxNumMsgs", maxNumMsgs, 1);
        atLeastMinusOne("maxTotalMsgBytes", maxTotalMsgBytes, 1);
        atLeastMinusOne("maxBytesPerMsg", maxBytesPerMsg, 1);
        atLeastMinusOne("maxNumProducers", maxNumProducers, 1);
        atLeastMinusOne("maxNumActiveConsumers", maxNumActiveConsumers, 1);
        atLeastMinusOne("maxNumBackupConsumers", maxNumBackupConsumers, 0);
        atLeastMinusOne("consumerFlowLimit", consumerFlowLimit, 1);
        atLeastMinusOne("maxRedeliveries", maxRedeliveries, 0);
        if (limitBehavior == null) {
            throw new IllegalArgumentException("limitBehavior must be one of FLOW_CONTROL, REJECT_NEWEST, REMOVE_OLDEST, but was null");
        }
        if (replicateFrom != null) {
            if (!pattern.startsWith("/queue/") || pattern.indexOf('*') >= 0 || pattern.indexOf('>') >= 0) {
                throw new IllegalArgumentException("replicateFrom needs a policy for one queue, such as [policy /queue/orders], "
                        + "but the pattern is '" + pattern + "'");
            }
            if (io.fedbridge.core.uri.CompositeUri.parse(replicateFrom).isComposite()) {
                throw new IllegalArgumentException("replicateFrom must be one broker's URI such as tcp://host:61613, but was '"
                        + replicateFrom + "'");
            }
        }
    }

    private static void atLeastMinusOne(String name, long v, long min) {
        if (v != -1 && v < min) {
            throw new IllegalArgumentException(name + " must be -1 (unlimited) or >= " + min + ", but was " + v);
        }
    }

    /** The policy of destinations no configured pattern matches (one shared instance: a record is immutable). */
    public static DestinationPolicy defaults() {
        return DEFAULTS;
    }

    public static Builder builder(String pattern) {
        return new Builder(pattern);
    }

    public Builder toBuilder() {
        return new Builder(pattern).maxNumMsgs(maxNumMsgs).maxTotalMsgBytes(maxTotalMsgBytes)
                .maxBytesPerMsg(maxBytesPerMsg).maxNumProducers(maxNumProducers)
                .maxNumActiveConsumers(maxNumActiveConsumers).consumerFlowLimit(consumerFlowLimit)
                .limitBehavior(limitBehavior).useDMQ(useDMQ).maxRedeliveries(maxRedeliveries)
                .localDeliveryPreferred(localDeliveryPreferred).isLocalOnly(isLocalOnly).replicateFrom(replicateFrom)
                .maxNumBackupConsumers(maxNumBackupConsumers);
    }

    public static final class Builder {
        private String pattern;
        private long maxNumMsgs = -1;
        private long maxTotalMsgBytes = -1;
        private long maxBytesPerMsg = -1;
        private int maxNumProducers = -1;
        private int maxNumActiveConsumers = -1;
        private int maxNumBackupConsumers = -1;
        private int consumerFlowLimit = 1000;
        private LimitBehavior limitBehavior = LimitBehavior.REJECT_NEWEST;
        private boolean useDMQ = true;
        private int maxRedeliveries = 6;
        private boolean localDeliveryPreferred;
        private boolean isLocalOnly;
        private String replicateFrom;

        private Builder(String pattern) {
            this.pattern = pattern;
        }

        public Builder pattern(String v) {
            pattern = v;
            return this;
        }

        public Builder maxNumMsgs(long v) {
            maxNumMsgs = v;
            return this;
        }

        public Builder maxTotalMsgBytes(long v) {
            maxTotalMsgBytes = v;
            return this;
        }

        public Builder maxBytesPerMsg(long v) {
            maxBytesPerMsg = v;
            return this;
        }

        public Builder maxNumProducers(int v) {
            maxNumProducers = v;
            return this;
        }

        public Builder maxNumActiveConsumers(int v) {
            maxNumActiveConsumers = v;
            return this;
        }

        /** Backups allowed beside the active consumers, federation-wide; -1 (default) = any number. */
        public Builder maxNumBackupConsumers(int v) {
            maxNumBackupConsumers = v;
            return this;
        }

        public Builder consumerFlowLimit(int v) {
            consumerFlowLimit = v;
            return this;
        }

        public Builder limitBehavior(LimitBehavior v) {
            limitBehavior = v;
            return this;
        }

        public Builder useDMQ(boolean v) {
            useDMQ = v;
            return this;
        }

        public Builder maxRedeliveries(int v) {
            maxRedeliveries = v;
            return this;
        }

        public Builder localDeliveryPreferred(boolean v) {
            localDeliveryPreferred = v;
            return this;
        }

        public Builder isLocalOnly(boolean v) {
            isLocalOnly = v;
            return this;
        }

        /** The source broker's URI of a replicated queue (see docs/ha.md); null (default) = none. */
        public Builder replicateFrom(String uri) {
            replicateFrom = uri;
            return this;
        }

        public DestinationPolicy build() {
            return new DestinationPolicy(pattern, maxNumMsgs, maxTotalMsgBytes, maxBytesPerMsg, maxNumProducers,
                    maxNumActiveConsumers, maxNumBackupConsumers, consumerFlowLimit, limitBehavior, useDMQ, maxRedeliveries,
                    localDeliveryPreferred, isLocalOnly, replicateFrom);
        }
    }
}
