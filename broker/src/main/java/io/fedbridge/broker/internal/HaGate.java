package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.Identity;
import io.fedbridge.core.StompHeaders;
import io.netty.channel.ChannelHandler;

/**
 * What a broker that is a member of an HA group asks its group about connections (module {@code fedbridge-ha}
 * implements it; not for applications). Called on the connection's I/O thread.
 */
public interface HaGate {

    /** CONNECT header with which a backup asks a primary for its replication stream; its value is the group. */
    String BACKUP_HEADER = "fedbridge-ha-backup";
    /** CONNECT header with which an administrator asks to be let in to a backup, to read its state. */
    String ADMIN_HEADER = "fedbridge-ha-admin";
    /** ERROR header naming the group's primary, when a backup refuses a client (the failover client moves there). */
    String PRIMARY_HEADER = "fedbridge-ha-primary";

    /**
     * Whether a client may connect: null if it may, else why not (a backup refuses every client but an
     * administrator's connection that asked with {@link #ADMIN_HEADER}, which may then only use the management API).
     */
    String refuseClient(boolean adminRequest);

    /** The group's primary's client URI, as far as this member knows; null if unknown. */
    String primaryUri();

    /** True while this member is a backup: admitted administrators may only use the management API. */
    boolean isBackup();

    /**
     * A backup's CONNECT (with {@link #BACKUP_HEADER}) on a link that holds the federation right: null to take it
     * (adding what the CONNECTED frame must say to {@code connected}), else why not.
     */
    String refuseBackup(StompHeaders connect, Identity identity, StompHeaders connected);

    /**
     * The handler that serves the replication link once CONNECTED is written; it replaces the session in the
     * channel's pipeline.
     */
    ChannelHandler newReplicationHandler(StompHeaders connect);

    /** The group's state for the management API ({@code type: ha}): JSON-ready maps, lists and scalars. */
    java.util.Map<String, Object> status();

    /**
     * Accepts a promotion of this member to primary ({@code fedbridge ha promote}): what to answer, and the promotion
     * itself, which the caller starts once the answer is on its way. A promotion closes the backup's listeners and every
     * connection on them, the requester's too; started first, it could close that connection before the answer was written.
     *
     * @throws IllegalStateException naming why it is refused (not a backup, not READY without {@code force}, ...)
     */
    Promotion promote(boolean force);

    /** An accepted promotion: the answer for the requester, and {@code start}, to run once the answer is routed. */
    record Promotion(java.util.Map<String, Object> answer, Runnable start) {
    }
}
