package io.fedbridge.ha;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.HaConfig;
import io.fedbridge.broker.internal.HaGate;
import io.fedbridge.broker.store.InMemoryMessageStore;
import io.fedbridge.broker.store.JournalMessageStore;
import io.fedbridge.broker.store.StoreConfig;
import io.fedbridge.ha.internal.BackupReplica;
import io.fedbridge.ha.internal.DataDirectory;
import io.fedbridge.ha.internal.ReplicatingStore;
import io.fedbridge.ha.internal.ReplicationHub;
import java.time.Duration;
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
 * Thread-safe: role changes run one at a time on the member's own thread; role and state are volatile fields that
 * the broker's I/O threads, JMX and status callers read. Parts with names of their own, in this package:
 * {@link Election} (promotion by ZooKeeper), {@link MemberGate} (what the broker asks: clients refused, backups'
 * replication links accepted) and {@link MemberJmx}; the replication itself is in {@code io.fedbridge.ha.internal}
 * ({@link BackupReplica} on a backup, {@link ReplicationHub} and {@link ReplicatingStore} on the primary).
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
    /** Records the READY set in ZooKeeper: it may wait on ZooKeeper, so not on the member's thread. */
    private final java.util.concurrent.ExecutorService recorder;
    private final MemberGate gate;
    /** Null without {@code ha.zookeeper}: promotion is by hand only. */
    private final Election election;
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
    private volatile long servingFromMillis;
    /** Set when the primary starts fencing itself: from then on it refuses clients. */
    private volatile boolean fencing;
    private volatile boolean closed;
    private volatile javax.management.ObjectName jmxName;

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
        this.recorder = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + config.name() + "-ha-recorder");
            t.setDaemon(true);
            return t;
        });
        this.gate = new MemberGate(this, ha);
        this.election = ha.zookeeper() == null ? null : new Election(this, ha, config.name(), data, thread);
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
            m.jmxName = MemberJmx.register(m, m.ha.group());
            if (m.election != null) {
                m.election.start(m.ownUri);
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

    /** When this member last began serving as primary (wall clock, ms); 0 if never. */
    public long servingSince() {
        return servingFromMillis;
    }

    /** The primary's URI as this member knows it; null if none is known. */
    public String primaryUri() {
        if (role == HaRole.PRIMARY) {
            return ownUri;
        }
        BackupReplica r = replica;
        String p = r == null ? null : r.primaryUri();
        if (p == null && election != null) {
            p = election.primaryUri();
        }
        return p;
    }

    /**
     * Promotes this backup to primary. Refused (IllegalStateException naming why) for a primary, and for a backup
     * that is not READY unless {@code force} — which may lose what the backup had not copied yet.
     */
    public Map<String, Object> promote(boolean force) {
        HaGate.Promotion p = acceptPromotion(force);
        p.start().run();
        return p.answer();
    }

    /** {@link #promote}'s checks and answer; the promotion begins when the caller runs {@code start}. */
    HaGate.Promotion acceptPromotion(boolean force) {
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
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("member", config.name());
        out.put("promoting", true);
        out.put("epoch", epoch);
        out.put("was", s.label());
        if (warning != null) {
            out.put("warning", warning);
        }
        return new HaGate.Promotion(out, () -> thread.execute(() -> becomePrimary(epoch, List.of())));
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
                config.security(), config.inDoubtHold(), config.ioThreads(), config.resourceLimits(), config.metrics(),
                config.cluster(), ha);
        broker = Broker.start(gateConfig, new InMemoryMessageStore(), gate);
        if (ownUri == null) {
            ownUri = ownUri(broker.connectUris());
        }
        BackupReplica r = new BackupReplica(config.name(), ha, data, storeConfig, config.security().federationSecret(),
                new ReplicaListener(), thread);
        replica = r;
        r.start();
        thread.execute(this::warmUp);
        LOG.info("HA member {} of group {}: backup, looking for the primary among {}", config.name(), ha.group(), ha.brokers());
        announced = "";
        announce();
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

    /**
     * Loads what a promotion needs and a backup does not use (the dedupe window's MapDB), off the promotion's path: a
     * cold JVM spent seconds on it when the primary died.
     */
    private void warmUp() {
        java.nio.file.Path f = data.path().resolve("warm-up.db");
        try {
            io.fedbridge.broker.store.DedupeLog.open(f, 16, Duration.ofMinutes(1), java.time.Clock.systemUTC()).close();
        } catch (RuntimeException e) {
            LOG.debug("HA member {}: warm-up: {}", config.name(), e.toString());
        } finally {
            try (var files = java.nio.file.Files.list(data.path())) {
                for (java.nio.file.Path p : files.filter(p -> p.getFileName().toString().startsWith("warm-up.db")).toList()) {
                    java.nio.file.Files.deleteIfExists(p);
                }
            } catch (java.io.IOException e) {
                LOG.debug("HA member {}: warm-up clean-up: {}", config.name(), e.toString());
            }
        }
    }

    /** Becomes primary with {@code epoch}, expecting the backups {@code expected} to catch up. On the member's thread. */
    void becomePrimary(long epoch, List<String> expected) {
        if (closed || role == HaRole.PRIMARY) {
            return;
        }
        long t0 = System.nanoTime();
        BackupReplica r = replica;
        replica = null;
        if (r != null) {
            r.close();
        }
        long t1 = System.nanoTime();
        data.epoch(epoch);
        Broker old = broker;
        broker = null;
        if (old != null) {
            old.close();
        }
        long t2 = System.nanoTime();
        ReplicationHub h = new ReplicationHub(config.name(), epoch, ha.backupTimeout(),
                election == null ? null : election.readySet(), recorder);
        ReplicatingStore s;
        try {
            s = new ReplicatingStore(JournalMessageStore.open(storeConfig), h, ha.replicate());
        } catch (RuntimeException e) {
            lastError = "cannot open the journal to become primary: " + e.getMessage();
            LOG.error("HA member {}: {}", config.name(), lastError, e);
            startBackup();
            return;
        }
        long t3 = System.nanoTime();
        hub = h;
        store = s;
        expectedBackups = expected;
        recoveringUntil = System.currentTimeMillis() + RECOVERY_TIMEOUT.toMillis();
        state = HaState.JOINING; // primary, but not serving until its listeners are bound again
        fencing = false;
        role = HaRole.PRIMARY;
        try {
            broker = Broker.start(config, s, gate);
            state = expected.isEmpty() ? HaState.ACTIVE : HaState.RECOVERING;
            servingFromMillis = System.currentTimeMillis();
        } catch (RuntimeException e) {
            lastError = "cannot start as primary: " + e.getMessage();
            LOG.error("HA member {}: {}", config.name(), lastError, e);
            h.fence(lastError);
            role = HaRole.BACKUP;
            startBackup();
            return;
        }
        promotedAtMillis = System.currentTimeMillis();
        timeouts = thread.scheduleWithFixedDelay(() -> {
            try {
                h.checkTimeouts();
                state(); // recovering -> active
                announce();
            } catch (RuntimeException e) {
                // A periodic task that throws is never run again: the backup timeout must keep working.
                LOG.warn("HA member {}: periodic check failed: {}", config.name(), e.toString(), e);
            }
        }, 100, 100, TimeUnit.MILLISECONDS);
        announced = "";
        announce();
        long t4 = System.nanoTime();
        LOG.info("HA member {}: PRIMARY of group {} with epoch {}, {} messages, in {} ms (replica closed in {} ms, backup's "
                        + "listeners in {} ms, journal opened in {} ms, broker started in {} ms)", config.name(), ha.group(), epoch,
                s.size(), (t4 - t0) / 1_000_000, (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (t3 - t2) / 1_000_000,
                (t4 - t3) / 1_000_000);
    }

    /** Steps down to backup: fences the hub, closes the broker, starts looking for the primary. On the member's thread. */
    void demote(String why) {
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

    /** Hands {@link #demote} to the member's thread. Any thread. */
    void demoteLater(String why) {
        thread.execute(() -> demote(why));
    }

    /**
     * ZooKeeper's connection is suspended or lost: a primary stops receipting now, before its session can expire and a
     * successor be chosen, then steps down. On Curator's thread; does not block.
     */
    void stopReceipting(String why) {
        ReplicationHub h = hub;
        if (role == HaRole.PRIMARY && h != null) {
            LOG.warn("HA member {}: {}: stops receipting now", config.name(), why);
            // Clients first: a send that was not receipted is then resent elsewhere by a failover client, rather
            // than answered with an ERROR it would take as a rejection.
            fencing = true;
            Broker b = broker;
            if (b != null) {
                b.closeConnections();
            }
            h.fence("broker " + config.name() + " is no longer sure to be the primary of HA group " + ha.group() + ": " + why);
            thread.execute(() -> demote(why));
        }
    }

    private final class ReplicaListener implements BackupReplica.Listener {
        @Override
        public void joining(String primaryUri, String primaryBrokerId, long epoch) {
            state = HaState.CATCHUP;
            thread.execute(HaMember.this::announce);
            if (election != null) {
                election.withdraw(); // about to empty the journal: not a copy any more
            }
        }

        @Override
        public void ready() {
            if (election == null) {
                state = HaState.READY;
                thread.execute(HaMember.this::announce);
            } else {
                thread.execute(election::reconsider); // READY once the primary recorded it in ZooKeeper
            }
        }

        @Override
        public void lost(String primaryUri, boolean wasReady, String why) {
            // A READY backup keeps its complete copy: it may still be promoted. Otherwise it is looking again.
            state = wasReady && state == HaState.READY ? HaState.READY : HaState.JOINING;
            thread.execute(HaMember.this::announce);
        }
    }

    // ---------------------------------------------------------------- for the parts

    /** The state as last set, without {@link #state()}'s recovering-to-active check. */
    HaState stateNow() {
        return state;
    }

    /** On the member's thread. */
    void state(HaState s) {
        state = s;
    }

    ReplicationHub hub() {
        return hub;
    }

    ReplicatingStore store() {
        return store;
    }

    BackupReplica replica() {
        return replica;
    }

    /** Whether this primary has begun fencing itself (it refuses clients from then on). */
    boolean isFencing() {
        return fencing;
    }

    boolean isClosed() {
        return closed;
    }

    private volatile String announced = "";

    /** Publishes {@code ha-state} on the serving broker's management events when role, state or epoch changed. */
    void announce() {
        Broker b = broker;
        String now = role.label() + " " + state.label() + " " + data.epoch();
        if (b == null || now.equals(announced) || b.management() == null) {
            return;
        }
        announced = now;
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("group", ha.group());
        e.put("member", config.name());
        e.put("role", role.label());
        e.put("state", state.label());
        e.put("epoch", data.epoch());
        e.put("primary", primaryUri());
        b.management().publishEvent("ha-state", e);
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
        m.put("promotion", election == null ? "manual" : "zookeeper");
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
        if (election != null) {
            m.put("zookeeperConnected", election.isConnected());
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
        MemberJmx.unregister(jmxName, config.name());
        try {
            thread.submit(() -> {
                if (election != null) {
                    election.close();
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
            recorder.shutdownNow();
        }
    }

    @Override
    public String toString() {
        return "HaMember[" + config.name() + ", group " + ha.group() + ", " + role.label() + " " + state.label() + "]";
    }
}
