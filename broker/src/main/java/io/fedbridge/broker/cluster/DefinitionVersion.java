package io.fedbridge.broker.cluster;

import java.util.Comparator;

/**
 * The version of a destination definition: a Lamport counter and the id of the broker that made the change. Versions
 * are totally ordered, the same way on every broker: the higher counter wins, and on equal counters the greater broker
 * id (string order). A broker's counter is above every counter it has seen, so a change made after seeing another
 * always beats it; two changes made concurrently (neither broker had seen the other's) are ordered by broker id.
 *
 * <p>Counter 0 is a definition from a broker's configuration ({@code [destination NAME]}): any change made through
 * the management API beats it.
 */
public record DefinitionVersion(long counter, String brokerId) implements Comparable<DefinitionVersion> {

    private static final Comparator<DefinitionVersion> ORDER = Comparator.comparingLong(DefinitionVersion::counter)
            .thenComparing(DefinitionVersion::brokerId);

    public DefinitionVersion {
        if (counter < 0) {
            throw new IllegalArgumentException("counter must be >= 0, but was " + counter);
        }
        if (brokerId == null || brokerId.isBlank() || brokerId.indexOf(':') >= 0) {
            throw new IllegalArgumentException("brokerId must be a broker id without ':', but was '" + brokerId + "'");
        }
    }

    /** Parses {@code COUNTER:BROKER-ID}, the wire and store form ({@link #toString()}). */
    public static DefinitionVersion parse(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("version must be COUNTER:BROKER-ID, but was '" + text + "'");
        }
        try {
            return new DefinitionVersion(Long.parseLong(text.substring(0, colon)), text.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("version must be COUNTER:BROKER-ID, but was '" + text + "'", e);
        }
    }

    @Override
    public int compareTo(DefinitionVersion o) {
        return ORDER.compare(this, o);
    }

    @Override
    public String toString() {
        return counter + ":" + brokerId;
    }
}
