package io.fedbridge.ha;

import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.internal.HaGate;
import io.fedbridge.broker.security.Identity;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.ha.internal.Links;
import io.fedbridge.ha.internal.ReplicatingStore;
import io.fedbridge.ha.internal.Replication;
import io.fedbridge.ha.internal.ReplicationHub;
import io.netty.channel.ChannelHandler;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the member's broker asks it ({@link HaGate}): whether a client may connect — to a primary that is not fencing
 * itself; to a backup only as an administrator, everyone else being told which broker is the primary — and whether a
 * backup's replication link is accepted: it must name this group, this member must be the unfenced primary, and a
 * backup that has seen a newer epoch than this primary's is refused and deposes it. An accepted link gets a handler
 * over the primary's {@link ReplicationHub} and its store's snapshot.
 *
 * <p>Concurrency: called on the broker's I/O threads. It reads the member's volatile state and hands a demotion to
 * the member's thread, never changing a role itself.
 */
final class MemberGate implements HaGate {

    private static final Logger LOG = LoggerFactory.getLogger(MemberGate.class);

    private final HaMember member;
    private final HaConfig ha;

    MemberGate(HaMember member, HaConfig ha) {
        this.member = member;
        this.ha = ha;
    }

    @Override
    public String refuseClient(boolean adminRequest) {
        if (member.role() == HaRole.PRIMARY) {
            ReplicationHub h = member.hub();
            return member.isFencing() || h != null && h.isFenced() ? "broker " + member.name()
                    + " is no longer the primary of HA group " + ha.group() : null;
        }
        if (adminRequest) {
            return null;
        }
        String primary = member.primaryUri();
        return "broker " + member.name() + " is a backup of HA group " + ha.group() + " (state " + member.stateNow().label()
                + ") and refuses clients; " + (primary == null ? "no primary is known yet" : "the primary is " + primary);
    }

    @Override
    public String primaryUri() {
        return member.primaryUri();
    }

    @Override
    public boolean isBackup() {
        return member.role() != HaRole.PRIMARY;
    }

    @Override
    public String refuseBackup(StompHeaders connect, Identity identity, StompHeaders connected) {
        String group = connect.get(HaGate.BACKUP_HEADER);
        if (!ha.group().equals(group)) {
            return "broker " + member.name() + " is a member of HA group " + ha.group() + ", not " + group;
        }
        ReplicationHub h = member.hub();
        if (member.role() != HaRole.PRIMARY || h == null || h.isFenced()) {
            String p = member.primaryUri();
            return "broker " + member.name() + " is not the primary of HA group " + ha.group()
                    + (p == null || p.equals(member.uri()) ? "" : "; the primary is " + p);
        }
        long theirs = parseEpoch(connect.get(Replication.MEMBER_EPOCH));
        if (theirs > h.epoch()) {
            LOG.warn("HA member {}: backup {} has seen epoch {}, newer than this primary's {}: this primary is deposed",
                    member.name(), connect.get(Replication.MEMBER), theirs, h.epoch());
            member.demoteLater("a backup has seen epoch " + theirs + ", newer than this primary's " + h.epoch());
            return "this primary's epoch " + h.epoch() + " is from the past (the backup has seen " + theirs + ")";
        }
        connected.add(Replication.EPOCH, Long.toString(h.epoch()));
        return null;
    }

    private static long parseEpoch(String s) {
        try {
            return s == null ? 0 : Long.parseLong(s);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    @Override
    public ChannelHandler newReplicationHandler(StompHeaders connect) {
        String m = connect.get(Replication.MEMBER);
        ReplicatingStore s = member.store();
        return Links.newLink(member.hub(), m == null ? "?" : m, ha.group(), s::snapshot);
    }

    @Override
    public Map<String, Object> status() {
        return member.status();
    }

    @Override
    public Promotion promote(boolean force) {
        return member.acceptPromotion(force);
    }
}
