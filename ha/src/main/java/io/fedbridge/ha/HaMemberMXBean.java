package io.fedbridge.ha;

/**
 * An HA member in JMX, as {@code io.fedbridge:type=HaMember,name=<member>}: its group, role, state and epoch, the
 * primary it knows, its last error, and promotion (what {@code fedbridge ha status|promote} show and do).
 */
public interface HaMemberMXBean {

    String getGroup();

    /** {@code primary} or {@code backup}. */
    String getRole();

    /** {@code joining}, {@code catchup}, {@code ready}, {@code recovering} or {@code active}. */
    String getState();

    long getEpoch();

    /** The primary's client URI as this member knows it; null if none. */
    String getPrimary();

    String getLastError();

    /**
     * Promotes this backup ({@link HaMember#promote}); returns what happened, or throws IllegalStateException naming
     * why it is refused.
     */
    String promote(boolean force);
}
