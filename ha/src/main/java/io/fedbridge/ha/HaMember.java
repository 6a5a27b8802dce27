package io.fedbridge.ha;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.internal.HaGate;
import io.fedbridge.broker.security.Identity;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.core.StompHeaders;
import io.fedbridge.ha.internal.BackupReplica;
import io.fedbridge.ha.internal.DataDirectory;
import io.fedbridge.ha.internal.Replication;
import io.fedbridge.ha.internal.ReplicatingStore;
import io.fedbridge.ha.internal.ReplicationHub;
import io.fedbridge.ha.internal.ZkCoordinator;
import io.netty.channel.ChannelHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A broker node that is a member of a high-availability group ({@link BrokerConfig#ha()}). It starts as a backup:
 * its client listeners refuse clients with an ERROR naming the primary (an administrator may connect with
 * {@code fedbridge-ha-admin: true} to read its state), and it copies the primary's store into its own journal. It
 * becomes primary when promoted — by hand ({@link #promote}, {@code fedbridge ha promote}) or, with
 * {@code ha.zookeeper}, by winning ZooKeeper's election — and then serves clients from that journal, receipting a
 * persistent send only once every READY backup has stored it.
 *
 * <pre>{@code
 * BrokerConfig config = BrokerConfig.builder("A1").listen("tcp://0.0.0.0:61613").dataDirectory(Path.of("data/A1"))
 *         .ha(h -> h.group("east").brokers("tcp://a1:61613,tcp://a2:61613,tcp://a3:61613").zookeeper("zk1:2181"))
 *         .build();
 * try (HaMember member = HaMember.start(config)) {
 *     ...
 * }
 * }</pre>
 *
 * Thread-safe: role changes run one at a time on the member's own thread.
 */
public final class HaMember implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HaMember.class);
    /** How long a new primary reports {@code recovering} while the backups that were READY catch up with it. */
    static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(30);

    private final BrokerConfig config;
    private final HaConfig ha;
    private final DataDirectory data;
    private final StoreConfig storeConfig;
    private final ScheduledExecutorService thread;
    private final Gate gate = new Gate();
    private final ZkCoordinator zk;
    private volatile HaRole role = HaRole.BACKUP;
    private volatile HaState state = HaState.JOINING;
    private volatile Broker broker;
    private volatile BackupReplica replica;
    private volatile ReplicationHub hub;
    private volatile ReplicatingStore store;
    private volatile ScheduledFuture<?> timeouts;
    private volatile String ownUri;
    private volatile String lastError;
    private volatile List<String> expectedBackups = List.of();
    private volatile long recoveringUntil;
    private volatile long promotedAtMillis;
    private volatile boolean closed;

    private HaMember(BrokerConfig config) {
        this.config = config;
        this.ha = config.ha();
        if (config.dataDirectory() == null) {
            throw new BrokerException("broker " + config.name() + " is a member of HA group '" + ha.group()
                    + "' and needs a data directory (data = ...): a backup keeps its copy of the primary's store there");
        }
        this.data = new DataDirectory(config.dataDirectory());
        checkGroup();
        this.storeConfig = StoreConfig.ofDefaults(data.journal()).toBuilder().durability(config.durability()).build();
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + config.name() + "-ha");
            t.setDaemon(true);
            return t;
        });
        this.zk = ha.zookeeper() == null ? null : new ZkCoordinator(ha, config.name(), data, new ZkCallbacks(), thread);
    }

    /** A data directory belongs to one group: a node configured into another is an error naming both. */
    private void checkGroup() {
        java.nio.file.Path f = data.path().resolve("ha.group");
        try {
            if (java.nio.file.Files.exists(f)) {
                String was = java.nio.file.Files.readString(f).trim();
                if (!was.equals(ha.group())) {
                    throw new BrokerException("broker " + config.name() + " is configured into HA group '" + ha.group()
                            + "' but its data directory " + data.path() + " belongs to group '" + was + "'; a node is a "
                            + "member of one group (use another data directory, or remove " + f + " after moving it)");
                }
            } else {
                java.nio.file.Files.writeString(f, ha.group() + "\n");
            }
        } catch (java.io.IOException e) {
            throw new BrokerException("cannot use HA data directory " + data.path() + ": " + e, e);
        }
    }

    /**
     * Starts a member as a backup: binds its listeners (which refuse clients until it is primary) and looks for the
     * primary; with {@code ha.zookeeper}, stands for election when it may.
     */
    public static HaMember start(BrokerConfig config) {
        if (config.ha() == null) {
            throw new BrokerException("broker " + config.name() + " is not a member of an HA group: set ha.group and ha.brokers");
        }
        HaMember m = new HaMember(config);
        try {
            m.thread.submit(m::startBackup).get(60, TimeUnit.SECONDS);
            io.fedbridge.ha.internal.PromotionWarmUp.start(config.name());
            if (m.zk != null) {
                m.zk.start(m.ownUri);
                m.thread.execute(m::reconsiderElection);
            } else {
                LOG.info("HA member {} of group {}: no ha.zookeeper, so promotion is by hand only (fedbridge ha promote)",
                        config.name(), m.ha.group());
            }
        } catch (Exception e) {
            m.close();
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof RuntimeException re) {
                throw re;
            }
            throw new BrokerException("HA member " + config.name() + " did not start: " + cause, cause);
        }
        return m;
    }

    public HaRole role() {
        return role;
    }

    public HaState state() {
        if (role == HaRole.PRIMARY && state == HaState.RECOVERING) {
            ReplicationHub h = hub;
            if (System.currentTimeMillis() > recoveringUntil || h != null && h.readyMembers().containsAll(expectedBackups)) {
                state = HaState.ACTIVE;
            }
        }
        return state;
    }

    /** The broker serving now: the primary's, or a backup's (which refuses clients). */
    public Broker broker() {
        return broker;
    }

    public String name() {
        return config.name();
    }

    /** This member's client URI, as listed in {@code ha.brokers}. */
    public String uri() {
        return ownUri;
    }

    public long epoch() {
        return data.epoch();
    }

    /** The primary's URI as this member knows it; null if none is known. */
    public String primaryUri() {
        if (role == HaRole.PRIMARY) {
            return ownUri;
        }
        BackupReplica r = replica;
        String p = r == null ? null : r.primaryUri();
        if (p == null && zk != null) {
            ZkCoordinator.GroupState s = zk.state();
            p = s == null ? null : s.uri();
        }
        return p;
    }

    /**
     * Promotes this backup to primary. Refused (IllegalStateException naming why) for a primary, and for a backup
     * that is not READY unless {@code force} — which may lose what the backup had not copied yet.
     */
    public Map<String, Object> promote(boolean force) {
        HaRole r = role;
        HaState s = state;
        if (r == HaRole.PRIMARY) {
            throw new IllegalStateException("broker " + config.name() + " is already the primary of group " + ha.group()
                    + " (epoch " + data.epoch() + ")");
        }
        BackupReplica rep = replica;
        if (s != HaState.READY && !force) {
            throw new IllegalStateException("broker " + config.name() + " is a backup in state " + s.label()
                    + ", not ready: its copy of the primary's store is incomplete; promoting it may lose messages the "
                    + "primary receipted. Use --force to promote it anyway");
        }
        if (s == HaState.READY && rep != null && rep.isConnected() && !force) {
            throw new IllegalStateException("broker " + config.name() + " still follows the live primary "
                    + rep.primaryUri() + "; promoting it would make two primaries. Stop the primary first, or use --force");
        }
        String warning = s == HaState.READY ? null : "forced promotion of a backup in state " + s.label()
                + ": messages the old primary receipted after this backup's last copy are lost";
        if (warning != null) {
            LOG.warn("HA member {}: {}", config.name(), warning);
        }
        long epoch = data.epoch() + 1;
        thread.execute(() -> becomePrimary(epoch, List.of()));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("member", config.name());
        out.put("promoting", true);
        out.put("epoch", epoch);
        out.put("was", s.label());
        if (warning != null) {
            out.put("warning", warning);
        }
        return out;
    }

    /** Waits until the member is the primary and serving (after {@link #promote}), up to {@code timeout}. */
    public boolean awaitPrimary(Duration timeout) {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (role == HaRole.PRIMARY && broker != null && broker.isRunning()) {
                return true;
            }
            try {
                thread.submit(() -> { }).get(Math.max(1, (end - System.nanoTime()) / 1_000_000), TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                return role == HaRole.PRIMARY;
            }
        }
        return role == HaRole.PRIMARY;
    }

    // ---------------------------------------------------------------- role changes, on the member's thread

    private void startBackup() {
        role = HaRole.BACKUP;
        state = HaState.JOINING;
        BrokerConfig gateConfig = new BrokerConfig(config.name(), config.listeners(), null, config.limits(), config.heartBeat(),
                config.memoryLimit(), config.defaultPrefetch(), config.durability(), config.policies(), List.of(),
                config.security(), config.inDoubtHold(), config.ioThreads(), config.resourceLimits(), config.metrics(), ha);
        broker = Broker.start(gateConfig, new InMemoryMessageStore(), gate);
        if (ownUri == null) {
            ownUri = ownUri(broker.connectUris());
        }
        BackupReplica r = new BackupReplica(config.name(), ha, data, storeConfig, config.security().federationSecret(),
                new ReplicaListener(), thread);
        replica = r;
        r.start();
        LOG.info("HA member {} of group {}: backup, looking for the primary among {}", config.name(), ha.group(), ha.brokers());
    }

    /** The member's own entry of ha.brokers: the one whose port is one of its listeners' (else its first listener). */
    private String ownUri(List<String> bound) {
        for (String member : ha.brokers()) {
            var m = io.fedbridge.core.uri.CompositeUri.parse(member);
            for (String b : bound) {
                var u = io.fedbridge.core.uri.CompositeUri.parse(b);
                if (u.hasPort() && m.hasPort() && u.port() == m.port() && u.scheme().equals(m.scheme())) {
                    return member;
                }
            }
        }
        return bound.isEmpty() ? null : bound.get(0);
    }

    private void becomePrimary(long epoch, List<String> expected) {
        if (closed || role == HaRole.PRIMARY) {
            return;
        }
        long t0 = System.nanoTime();
        BackupReplica r = replica;
        replica = null;
        if (r != null) {
            r.close();
        }
        data.epoch(epoch);
        Broker old = broker;
        broker = null;
        if (old != null) {
            old.close();
        }
        ReplicationHub h = new ReplicationHub(config.name(), epoch, ha.backupTimeout(), zk == null ? null : zk::recordReady, thread);
        ReplicatingStore s;
        try {
            s = new ReplicatingStore(JournalMessageStore.open(storeConfig), h, ha.replicate());
        } catch (RuntimeException e) {
            lastError = "cannot open the journal to become primary: " + e.getMessage();
            LOG.error("HA member {}: {}", config.name(), lastError, e);
            startBackup();
            return;
        }
        hub = h;
        store = s;
        expectedBackups = expected;
        recoveringUntil = System.currentTimeMillis() + RECOVERY_TIMEOUT.toMillis();
        state = expected.isEmpty() ? HaState.ACTIVE : HaState.RECOVERING;
        role = HaRole.PRIMARY;
        try {
            broker = Broker.start(config, s, gate);
        } catch (RuntimeException e) {
            lastError = "cannot start as primary: " + e.getMessage();
            LOG.error("HA member {}: {}", config.name(), lastError, e);
            h.fence(lastError);
            role = HaRole.BACKUP;
            startBackup();
            return;
        }
        promotedAtMillis = System.currentTimeMillis();
        timeouts = thread.scheduleWithFixedDelay(h::checkTimeouts, 100, 100, TimeUnit.MILLISECONDS);
        LOG.info("HA member {}: PRIMARY of group {} with epoch {} ({} messages recovered in {} ms)", config.name(), ha.group(),
                epoch, s.size(), (System.nanoTime() - t0) / 1_000_000);
    }

    private void demote(String why) {
        if (role != HaRole.PRIMARY || closed) {
            return;
        }
        LOG.warn("HA member {}: no longer primary of group {}: {}; refusing clients and receipts from now", config.name(),
                ha.group(), why);
        lastError = why;
        ReplicationHub h = hub;
        if (h != null) {
            h.fence("broker " + config.name() + " is no longer the primary of HA group " + ha.group() + ": " + why);
        }
        ScheduledFuture<?> t = timeouts;
        if (t != null) {
            t.cancel(false);
        }
        role = HaRole.BACKUP;
        state = HaState.JOINING;
        Broker b = broker;
        broker = null;
        if (b != null) {
            b.close();
        }
        hub = null;
        store = null;
        startBackup();
    }

    private void reconsiderElection() {
        if (zk == null || closed) {
            return;
        }
        if (role == HaRole.PRIMARY) {
            return;
        }
        ZkCoordinator.GroupState s = zk.state();
        boolean eligible = s == null && zk.isConnected() && state != HaState.CATCHUP
                || s != null && state == HaState.READY && s.ready().contains(config.name());
        zk.eligible(eligible);
    }

    private final class ZkCallbacks implements ZkCoordinator.Callbacks {
        @Override
        public void elected(long epoch) {
            ZkCoordinator.GroupState s = zk.state();
            List<String> expected = new ArrayList<>();
            if (s != null) {
                for (String m : s.ready()) {
                    if (!m.equals(config.name())) {
                        expected.add(m);
                    }
                }
            }
            becomePrimary(epoch, expected);
        }

        @Override
        public void deposed(String why) {
            demote(why);
        }

        @Override
        public void stateChanged(ZkCoordinator.GroupState s) {
            if (role == HaRole.PRIMARY && s.epoch() > data.epoch()) {
                demote("ZooKeeper names " + s.primary() + " primary with epoch " + s.epoch());
                return;
            }
            reconsiderElection();
        }
    }

    private final class ReplicaListener implements BackupReplica.Listener {
        @Override
        public void joining(String primaryUri, String primaryBrokerId, long epoch) {
            state = HaState.CATCHUP;
            if (zk != null) {
                zk.eligible(false); // about to empty the journal: not a copy any more
            }
        }

        @Override
        public void ready() {
            state = HaState.READY;
            thread.execute(HaMember.this::reconsiderElection);
        }

        @Override
        public void lost(String primaryUri, boolean wasReady, String why) {
            // A READY backup keeps its complete copy: it may still be promoted. Otherwise it is looking again.
            state = wasReady ? HaState.READY : HaState.JOINING;
        }
    }

    // ---------------------------------------------------------------- what the broker asks

    private final class Gate implements HaGate {
        @Override
        public String refuseClient(boolean adminRequest) {
            if (role == HaRole.PRIMARY) {
                ReplicationHub h = hub;
                return h != null && h.isFenced() ? "broker " + config.name() + " is no longer the primary of HA group "
                        + ha.group() : null;
            }
            if (adminRequest) {
                return null;
            }
            String primary = primaryUri();
            return "broker " + config.name() + " is a backup of HA group " + ha.group() + " (state " + state.label() + ") and "
                    + "refuses clients; " + (primary == null ? "no primary is known yet" : "the primary is " + primary);
        }

        @Override
        public String primaryUri() {
            return HaMember.this.primaryUri();
        }

        @Override
        public boolean isBackup() {
            return role != HaRole.PRIMARY;
        }

        @Override
        public String refuseBackup(StompHeaders connect, Identity identity, StompHeaders connected) {
            String group = connect.get(HaGate.BACKUP_HEADER);
            if (!ha.group().equals(group)) {
                return "broker " + config.name() + " is a member of HA group " + ha.group() + ", not " + group;
            }
            ReplicationHub h = hub;
            if (role != HaRole.PRIMARY || h == null || h.isFenced()) {
                String p = HaMember.this.primaryUri();
                return "broker " + config.name() + " is not the primary of HA group " + ha.group()
                        + (p == null || p.equals(ownUri) ? "" : "; the primary is " + p);
            }
            long theirs = parseEpoch(connect.get(Replication.MEMBER_EPOCH));
            if (theirs > h.epoch()) {
                LOG.warn("HA member {}: backup {} has seen epoch {}, newer than this primary's {}: this primary is deposed",
                        config.name(), connect.get(Replication.MEMBER), theirs, h.epoch());
                thread.execute(() -> demote("a backup has seen epoch " + theirs + ", newer than this primary's " + h.epoch()));
                return "this primary's epoch " + h.epoch() + " is from the past (the backup has seen " + theirs + ")";
            }
            connected.add(Replication.EPOCH, Long.toString(h.epoch()));
            return null;
        }

        private long parseEpoch(String s) {
            try {
                return s == null ? 0 : Long.parseLong(s);
            } catch (NumberFormatException e) {
                return 0;
            }
        }

        @Override
        public ChannelHandler newReplicationHandler(StompHeaders connect) {
            String member = connect.get(Replication.MEMBER);
            ReplicatingStore s = store;
            return io.fedbridge.ha.internal.Links.newLink(hub, member == null ? "?" : member, ha.group(), s::snapshot);
        }

        @Override
        public Map<String, Object> status() {
            return HaMember.this.status();
        }

        @Override
        public Map<String, Object> promote(boolean force) {
            return HaMember.this.promote(force);
        }
    }

    /** What {@code fedbridge ha status} prints for this member (JSON-ready). */
    public Map<String, Object> status() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("group", ha.group());
        m.put("member", config.name());
        m.put("uri", ownUri);
        m.put("role", role.label());
        m.put("state", state().label());
        m.put("epoch", data.epoch());
        m.put("primary", primaryUri());
        m.put("promotion", zk == null ? "manual" : "zookeeper");
        m.put("replicate", ha.replicate().name().toLowerCase(java.util.Locale.ROOT));
        ReplicationHub h = hub;
        BackupReplica r = replica;
        if (role == HaRole.PRIMARY && h != null) {
            m.put("backups", h.backups());
            m.put("messages", store == null ? 0 : store.size());
            m.put("promotedAt", promotedAtMillis);
            String e = h.lastError();
            m.put("lastError", e != null ? e : lastError);
        } else {
            m.put("storedRecords", r == null ? 0 : r.storedRecords());
            String e = r == null ? null : r.lastError();
            m.put("lastError", e != null ? e : lastError);
        }
        if (zk != null) {
            m.put("zookeeperConnected", zk.isConnected());
        }
        m.put("members", ha.brokers());
        return m;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            thread.submit(() -> {
                if (zk != null) {
                    zk.close();
                }
                ScheduledFuture<?> t = timeouts;
                if (t != null) {
                    t.cancel(false);
                }
                BackupReplica r = replica;
                replica = null;
                if (r != null) {
                    r.close();
                }
                Broker b = broker;
                broker = null;
                if (b != null) {
                    b.close();
                }
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            LOG.warn("HA member {}: close: {}", config.name(), e.toString());
        } finally {
            thread.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "HaMember[" + config.name() + ", group " + ha.group() + ", " + role.label() + " " + state.label() + "]";
    }
}
