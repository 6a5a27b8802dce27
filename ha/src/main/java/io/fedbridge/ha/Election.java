package io.fedbridge.ha;

import io.fedbridge.broker.HaConfig;
import io.fedbridge.ha.internal.BackupReplica;
import io.fedbridge.ha.internal.DataDirectory;
import io.fedbridge.ha.internal.ReplicationHub;
import io.fedbridge.ha.internal.ZkCoordinator;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Promotion by ZooKeeper ({@code ha.zookeeper}), through {@link ZkCoordinator}. A backup stands for election only when
 * it may hold every message the group receipted: READY with the group's record saying so, the first member of a group
 * without state, or the primary of record itself, deposed or restarted with nobody elected since. The winner becomes
 * primary, expecting the other READY members to catch up; a primary that ZooKeeper no longer names, or whose lease
 * lapsed, steps down, and one whose connection is suspended stops receipting at once.
 *
 * <p>Concurrency: {@link #reconsider()} and the coordinator's callbacks run on the member's thread, but
 * {@code suspended}, which runs on Curator's thread and must not block; the member changes its role on its thread.
 */
final class Election {

    private static final Logger LOG = LoggerFactory.getLogger(Election.class);

    private final HaMember member;
    private final String name;
    private final DataDirectory data;
    private final ScheduledExecutorService thread;
    private final ZkCoordinator zk;

    Election(HaMember member, HaConfig ha, String name, DataDirectory data, ScheduledExecutorService thread) {
        this.member = member;
        this.name = name;
        this.data = data;
        this.thread = thread;
        this.zk = new ZkCoordinator(ha, name, data, new Callbacks(), thread);
    }

    /** Joins the group in ZooKeeper as {@code ownUri} and stands for election when it may, checking again every second. */
    void start(String ownUri) {
        zk.start(ownUri);
        thread.execute(this::reconsider);
        // Again every second: a ZooKeeper connection that comes back changes no data, so no event says so.
        thread.scheduleWithFixedDelay(() -> {
            try {
                if (member.role() == HaRole.BACKUP && zk.isConnected()) {
                    reconsider();
                }
            } catch (RuntimeException e) {
                LOG.warn("HA member {}: periodic election check failed: {}", name, e.toString(), e);
            }
        }, 1, 1, TimeUnit.SECONDS);
    }

    /** A backup's READY state as the group records it, and whether it stands for election. On the member's thread. */
    void reconsider() {
        if (member.isClosed()) {
            return;
        }
        if (member.role() == HaRole.PRIMARY) {
            return;
        }
        ZkCoordinator.GroupState s = zk.state();
        BackupReplica r = member.replica();
        boolean complete = r != null && r.isReady();
        boolean recorded = s != null && s.ready().contains(name) && s.epoch() == data.epoch();
        if (complete && recorded) {
            member.state(HaState.READY); // a complete copy, and the group knows it: this member may be promoted
        } else if (member.stateNow() == HaState.READY && s != null && !s.ready().contains(name)) {
            member.state(r != null && r.isConnected() ? HaState.CATCHUP : HaState.JOINING);
        }
        member.announce();
        // The primary of record, deposed (its ZooKeeper session lapsed) or restarted, with nobody elected since: its
        // journal holds everything it receipted, so it may stand again beside the READY backups (one of them or it
        // wins; each holds every receipted message). Without this, a group whose backups had all left the READY set
        // would wait for an operator although the newest copy is right here.
        boolean formerPrimary = s != null && name.equals(s.primary()) && s.epoch() == data.epoch()
                && (r == null || !r.isConnected());
        HaState state = member.stateNow();
        boolean eligible = s == null && zk.isConnected() && state == HaState.JOINING && (r == null || !r.isConnected())
                || state == HaState.READY && recorded || formerPrimary && zk.isConnected();
        zk.eligible(eligible);
    }

    /** About to empty the journal for a new copy: not a candidate any more. */
    void withdraw() {
        zk.eligible(false);
    }

    /** Where the primary records its READY backups in ZooKeeper. */
    ReplicationHub.ReadySet readySet() {
        return zk::recordReady;
    }

    /** The primary's URI as ZooKeeper has it; null if none is recorded. */
    String primaryUri() {
        ZkCoordinator.GroupState s = zk.state();
        return s == null ? null : s.uri();
    }

    boolean isConnected() {
        return zk.isConnected();
    }

    void close() {
        zk.close();
    }

    private final class Callbacks implements ZkCoordinator.Callbacks {
        @Override
        public void elected(long epoch) {
            ZkCoordinator.GroupState s = zk.state();
            List<String> expected = new ArrayList<>();
            if (s != null) {
                for (String m : s.ready()) {
                    if (!m.equals(name)) {
                        expected.add(m);
                    }
                }
            }
            member.becomePrimary(epoch, expected);
        }

        @Override
        public void deposed(String why) {
            member.demote(why);
        }

        @Override
        public void suspended(String why) {
            member.stopReceipting(why);
        }

        @Override
        public void stateChanged(ZkCoordinator.GroupState s) {
            if (member.role() == HaRole.PRIMARY && s.epoch() > data.epoch()) {
                member.demote("ZooKeeper names " + s.primary() + " primary with epoch " + s.epoch());
                return;
            }
            reconsider();
        }
    }
}
