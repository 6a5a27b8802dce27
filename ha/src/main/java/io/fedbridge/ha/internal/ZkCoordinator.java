package io.fedbridge.ha.internal;

import io.fedbridge.broker.HaConfig;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is primary, decided by ZooKeeper through Apache Curator. The group's node
 * {@code /fedbridge/ha/GROUP/state} holds the current epoch, the primary and the members that hold a complete copy
 * of its store (the READY set). A member may stand for election (a Curator {@link LeaderLatch}) only when it is in
 * that set — or when the group has never had a primary. The winner bumps the epoch with a conditional write; the
 * primary records every change of the READY set with a conditional write on its own version, so a deposed primary
 * can change nothing. Losing the ZooKeeper connection (SUSPENDED) takes the lease away at once: the primary stops
 * receipting before the session expires and a successor can be chosen.
 */
public final class ZkCoordinator implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ZkCoordinator.class);

    /** The group's record in ZooKeeper. */
    public record GroupState(long epoch, String primary, String uri, List<String> ready) {
        static GroupState parse(byte[] data) {
            Map<String, String> m = new LinkedHashMap<>();
            for (String line : new String(data, StandardCharsets.UTF_8).split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    m.put(line.substring(0, eq), line.substring(eq + 1));
                }
            }
            String r = m.getOrDefault("ready", "");
            return new GroupState(Long.parseLong(m.getOrDefault("epoch", "0")), m.get("primary"), m.get("uri"),
                    r.isEmpty() ? List.of() : Arrays.asList(r.split(",")));
        }

        byte[] bytes() {
            return ("epoch=" + epoch + "\nprimary=" + primary + "\nuri=" + uri + "\nready=" + String.join(",", ready) + "\n")
                    .getBytes(StandardCharsets.UTF_8);
        }
    }

    /** What the member hears. Called on the coordinator's executor. */
    public interface Callbacks {
        /** This member won the election with {@code epoch}: become primary. */
        void elected(long epoch);

        /** This member is primary no longer (lease lost, connection suspended, state changed under it). */
        void deposed(String why);

        /** The group's state changed (a new primary, a new READY set). */
        void stateChanged(GroupState state);

        /**
         * The connection to ZooKeeper is suspended or lost: a primary must stop receipting now, before its session can
         * expire and a successor be chosen. Called on Curator's thread; must not block.
         */
        void suspended(String why);
    }

    private final HaConfig ha;
    private final String member;
    private final DataDirectory data;
    private final Callbacks callbacks;
    private final ExecutorService executor;
    private final CuratorFramework client;
    private final String statePath;
    private final String latchPath;
    private final CuratorCache cache;
    private LeaderLatch latch;
    private volatile boolean eligible;
    private volatile String uri;
    private volatile int stateVersion = -1;
    private volatile boolean leading;
    private volatile boolean closed;

    public ZkCoordinator(HaConfig ha, String member, DataDirectory data, Callbacks callbacks, ExecutorService executor) {
        this.ha = ha;
        this.member = member;
        this.data = data;
        this.callbacks = callbacks;
        this.executor = executor;
        int session = (int) ha.zookeeperSessionTimeout().toMillis();
        this.client = CuratorFrameworkFactory.builder().connectString(ha.zookeeper()).sessionTimeoutMs(session)
                .connectionTimeoutMs(Math.max(1000, session / 2)).retryPolicy(new ExponentialBackoffRetry(100, 20, 2000))
                .build();
        this.statePath = "/fedbridge/ha/" + ha.group() + "/state";
        this.latchPath = "/fedbridge/ha/" + ha.group() + "/latch";
        this.cache = CuratorCache.build(client, statePath);
    }

    /** Connects; a ZooKeeper that cannot be reached is a WARN, and the member stays a backup until it can. */
    public void start(String ownUri) {
        this.uri = ownUri;
        client.getConnectionStateListenable().addListener((c, newState) -> {
            if (!newState.isConnected() && leading) {
                callbacks.suspended("its ZooKeeper connection is " + newState.name().toLowerCase(java.util.Locale.ROOT));
            }
        });
        client.start();
        cache.listenable().addListener((type, oldData, newData) -> executor.execute(() -> {
            if (newData != null && newData.getData() != null) {
                try {
                    callbacks.stateChanged(GroupState.parse(newData.getData()));
                } catch (RuntimeException e) {
                    LOG.warn("HA member {}: unreadable group state in ZooKeeper {}: {}", member, statePath, e.toString());
                }
            }
        }));
        cache.start();
        try {
            if (!client.blockUntilConnected((int) ha.zookeeperSessionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("HA member {}: ZooKeeper {} (ha.zookeeper) is unreachable at start; this member stays a backup "
                        + "and keeps trying", member, ha.zookeeper());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The group's state as ZooKeeper holds it now; null if none yet (or unreachable). */
    public GroupState state() {
        try {
            return GroupState.parse(client.getData().forPath(statePath));
        } catch (KeeperException.NoNodeException e) {
            return null;
        } catch (Exception e) {
            LOG.debug("HA member {}: cannot read {}: {}", member, statePath, e.toString());
            return null;
        }
    }

    /** Whether this member may stand for election: it holds a complete copy (or the group never had a primary). */
    public synchronized void eligible(boolean yes) {
        if (closed || yes == eligible) {
            return;
        }
        eligible = yes;
        if (yes) {
            latch = new LeaderLatch(client, latchPath, member, LeaderLatch.CloseMode.NOTIFY_LEADER);
            LeaderLatch mine = latch;
            latch.addListener(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    executor.execute(() -> won(mine));
                }

                @Override
                public void notLeader() {
                    executor.execute(() -> lost(mine, "lost the ZooKeeper lease (connection suspended or session expired)"));
                }
            });
            try {
                latch.start();
                LOG.info("HA member {}: standing for election in group {}", member, ha.group());
            } catch (Exception e) {
                LOG.warn("HA member {}: cannot stand for election: {}", member, e.toString());
                eligible = false;
                latch = null;
            }
        } else {
            LeaderLatch l = latch;
            latch = null;
            closeQuietly(l);
        }
    }

    private void won(LeaderLatch l) {
        if (l != latch || closed) {
            return;
        }
        try {
            Stat stat = new Stat();
            GroupState current;
            try {
                current = GroupState.parse(client.getData().storingStatIn(stat).forPath(statePath));
            } catch (KeeperException.NoNodeException e) {
                current = null;
            }
            if (current != null && !current.ready().contains(member) && !member.equals(current.primary())) {
                LOG.info("HA member {}: won the latch but is not in the READY set {} of epoch {}: stands down", member,
                        current.ready(), current.epoch());
                eligible(false);
                return;
            }
            long epoch = Math.max(current == null ? 0 : current.epoch(), data.epoch()) + 1;
            GroupState next = new GroupState(epoch, member, uri, List.of());
            Stat written;
            if (current == null) {
                client.create().creatingParentsIfNeeded().forPath(statePath, next.bytes());
                written = client.checkExists().forPath(statePath);
            } else {
                written = client.setData().withVersion(stat.getVersion()).forPath(statePath, next.bytes());
            }
            stateVersion = written.getVersion();
            leading = true;
            LOG.info("HA member {}: elected primary of group {} with epoch {}", member, ha.group(), epoch);
            callbacks.elected(epoch);
        } catch (Exception e) {
            LOG.warn("HA member {}: won the latch but could not record epoch: {}; stands down", member, e.toString());
            eligible(false);
        }
    }

    private void lost(LeaderLatch l, String why) {
        if (leading) {
            leading = false;
            callbacks.deposed(why);
        }
        if (l == latch) {
            eligible(false); // a deposed primary stands again only once it is READY under its successor
        }
    }

    /** The primary records its READY set; false if it cannot (then it must not stop waiting for the others). */
    public boolean recordReady(List<String> members) {
        if (!leading) {
            return false;
        }
        try {
            if (!client.getZookeeperClient().isConnected()) {
                return false; // not now: the member is fenced, or will be, as soon as Curator says so
            }
            GroupState next = new GroupState(data.epoch(), member, uri, new ArrayList<>(members));
            java.util.concurrent.CompletableFuture<Stat> written = new java.util.concurrent.CompletableFuture<>();
            client.setData().withVersion(stateVersion).inBackground((c, event) -> {
                if (event.getResultCode() == KeeperException.Code.OK.intValue()) {
                    written.complete(event.getStat());
                } else {
                    written.completeExceptionally(KeeperException.create(KeeperException.Code.get(event.getResultCode())));
                }
            }).forPath(statePath, next.bytes());
            Stat s;
            try {
                s = written.get(ha.zookeeperSessionTimeout().toMillis() / 3, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw e.getCause() instanceof Exception ex ? ex : e;
            }
            stateVersion = s.getVersion();
            return true;
        } catch (KeeperException.BadVersionException e) {
            executor.execute(() -> {
                if (leading) {
                    leading = false;
                    callbacks.deposed("the group's state in ZooKeeper changed under this primary");
                }
            });
            return false;
        } catch (Exception e) {
            LOG.warn("HA member {}: cannot record the READY set in ZooKeeper: {}", member, e.toString());
            return false;
        }
    }

    public boolean isConnected() {
        return client.getZookeeperClient().isConnected();
    }

    @Override
    public synchronized void close() {
        closed = true;
        closeQuietly(latch);
        latch = null;
        cache.close();
        client.close();
    }

    private static void closeQuietly(LeaderLatch l) {
        if (l == null) {
            return;
        }
        try {
            l.close();
        } catch (Exception e) {
            LOG.debug("closing a leader latch: {}", e.toString());
        }
    }
}
