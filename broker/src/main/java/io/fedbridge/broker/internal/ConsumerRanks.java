package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.core.FederationHeaders;
import java.util.Comparator;
import java.util.regex.Pattern;

/**
 * Federation-wide ranks of the consumers of a queue whose active consumers are limited ({@code maxNumActiveConsumers}):
 * see docs/cluster.md. A rank is {@code TIME/ORIGIN-CONSUMER-ID}, TIME being 13 decimal digits of epoch milliseconds, so
 * ranks compare as strings. A local consumer's TIME is the later of the broker's clock and one more than every rank
 * the queue knows (so a consumer that arrives later never outranks one already known, whatever the clocks of the
 * brokers say); a network consumer carries the rank of the remote consumer it stands for. Every broker sees the same
 * ranks, so every broker takes the same lowest ones as the active consumers.
 */
final class ConsumerRanks {

    private static final Pattern RANK = Pattern.compile("\\d{13}/[^\\s,]{1,400}");

    /** Lowest rank first; unranked consumers last, in the order given (a stable sort). */
    static final Comparator<ServerConsumer> ORDER = Comparator.comparing((ServerConsumer c) -> c.rank,
            Comparator.nullsLast(Comparator.naturalOrder()));

    private ConsumerRanks() {
    }

    /** Whether {@code q} ranks its consumers federation-wide: a queue proper with limited active consumers. */
    static boolean isRanked(QueueDestination q) {
        return q.sharedQueue && q.policy.maxNumActiveConsumers() != -1;
    }

    /**
     * Gives {@code c} its rank before it attaches: a local consumer of a queue a new one, after checking
     * {@code maxNumBackupConsumers}; a network consumer the one its SUBSCRIBE carries ({@code header}, or null).
     *
     * @return null if admitted, else why not (for the ERROR frame)
     */
    static String admit(ServerConsumer c, String header) {
        QueueDestination q = c.queue;
        if (c.network) {
            if (header != null && !RANK.matcher(header).matches()) {
                return FederationHeaders.CONSUMER_RANK + " must be 13 digits of epoch milliseconds, '/' and a consumer id, "
                        + "but was '" + header + "'";
            }
            c.rank = header;
            return null;
        }
        if (!q.sharedQueue) {
            return null;
        }
        synchronized (q) {
            DestinationPolicy p = q.policy;
            if (p.maxNumActiveConsumers() != -1 && p.maxNumBackupConsumers() != -1) {
                long allowed = (long) p.maxNumActiveConsumers() + p.maxNumBackupConsumers();
                int known = q.rankedConsumerCount();
                if (known >= allowed) {
                    return q.name + " allows " + allowed + " consumer(s) in the federation (maxNumActiveConsumers="
                            + p.maxNumActiveConsumers() + ", maxNumBackupConsumers=" + p.maxNumBackupConsumers()
                            + ") and has " + known + " already";
                }
            }
            long time = Math.max(q.core().clock.millis(), q.latestRankTime() + 1);
            c.rank = rank(time, c.originId);
        }
        return null;
    }

    /** {@code TIME/ID} with TIME zero-padded to 13 digits ({@code %013d/%s}, without a Formatter per SUBSCRIBE). */
    static String rank(long time, String originId) {
        String digits = Long.toString(time);
        return "0".repeat(Math.max(0, 13 - digits.length())) + digits + "/" + originId;
    }

    /** The TIME of a rank; 0 for one that has none. */
    static long time(String rank) {
        if (rank == null || rank.length() < 13) {
            return 0;
        }
        try {
            return Long.parseLong(rank, 0, 13, 10);
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
