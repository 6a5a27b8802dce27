package io.fedbridge.broker.cluster;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.cluster.internal.AutoDeleter;
import io.fedbridge.broker.cluster.internal.DefinitionCodec;
import io.fedbridge.broker.cluster.internal.DefinitionStore;
import io.fedbridge.broker.internal.ClusterCore;
import io.fedbridge.broker.internal.ClusterHook;
import io.fedbridge.core.StompHeaders;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Destinations defined once for the whole federation (OpenMQ's cluster-wide destinations, without a master broker):
 * {@link #define} or {@link #delete} on any broker and every broker of the federation stores the definition, applies
 * its policy and, for a queue, creates or removes it. Definitions travel over the bridges on
 * {@code /topic/fedbridge.advisory.definitions}, which only federation links may write; a bridge coming up first
 * hands over every definition its broker holds, so a broker that was down or cut off converges. Conflicting changes
 * are settled by {@link DefinitionVersion}'s order, the same on every broker. See docs/cluster.md.
 *
 * <pre>{@code
 * broker.cluster().define(DestinationPolicy.builder("/queue/orders").maxNumMsgs(10_000).build());
 * }</pre>
 *
 * <p>Concurrency: changes (local, received, at start) are applied under this object's monitor, in one order; received
 * definitions are handed from I/O threads to a thread of its own. Reads are lock-free. Thread-safe.
 */
public final class ClusterDestinations implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClusterDestinations.class);

    private final ClusterCore core;
    private final ClusterConfig config;
    private final DefinitionStore store;
    private final String brokerId;
    private final Map<String, DestinationDefinition> definitions = new ConcurrentHashMap<>();
    private final List<Consumer<DestinationDefinition>> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService executor;
    private final AutoDeleter autoDeleter;
    /** The Lamport counter: above every version seen. Guarded by this. */
    private long counter;
    /** Whether this broker's own link to the broker of that name is up (masterBroker mode). */
    private final java.util.function.Predicate<String> linkUp;

    private ClusterDestinations(ClusterCore core, ClusterConfig config, DefinitionStore store,
                                java.util.function.Predicate<String> linkUp) {
        this.core = core;
        this.linkUp = linkUp;
        this.config = config;
        this.store = store;
        this.brokerId = core.brokerId();
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "fedbridge-" + core.brokerName() + "-cluster");
            t.setDaemon(true);
            return t;
        });
        this.autoDeleter = new AutoDeleter(core, config.autoDeleteIdle(), executor);
    }

    /**
     * Starts the definitions of a broker: recovers those stored in {@code dataDirectory} (null: none kept), applies
     * them, defines the configured ones not known yet, then listens to the federation. Called by the broker at start.
     */
    public static ClusterDestinations start(ClusterCore core, ClusterConfig config, Path dataDirectory) {
        return start(core, config, dataDirectory, name -> false);
    }

    /**
     * As {@link #start(ClusterCore, ClusterConfig, Path)}; {@code linkUp} tells whether this broker's own link to the
     * broker of a given name is up, which {@link ClusterConfig#masterBroker()} mode asks before a change.
     */
    public static ClusterDestinations start(ClusterCore core, ClusterConfig config, Path dataDirectory,
                                            java.util.function.Predicate<String> linkUp) {
        DefinitionStore store = DefinitionStore.open(dataDirectory, core.brokerName());
        ClusterDestinations c = new ClusterDestinations(core, config, store, linkUp);
        try {
            c.recover();
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
        core.hook(c.new Hook());
        c.autoDeleter.start();
        return c;
    }

    private synchronized void recover() {
        List<DestinationDefinition> stored = store.load();
        for (DestinationDefinition d : stored) {
            counter = Math.max(counter, d.version().counter());
            definitions.put(d.destination(), d);
            applyToCore(d);
        }
        if (!stored.isEmpty()) {
            LOG.info("broker {}: recovered {} destination definitions ({} deleted)", core.brokerName(), stored.size(),
                    stored.stream().filter(DestinationDefinition::deleted).count());
        }
        for (DestinationPolicy p : config.destinations()) {
            DestinationDefinition known = definitions.get(p.pattern());
            if (known == null) {
                apply(new DestinationDefinition(p.pattern(), p, new DefinitionVersion(0, brokerId), false));
            } else if (known.deleted()) {
                LOG.warn("broker {}: its configuration defines {} ([destination {}]), but the federation deleted it (version {}); "
                        + "it stays deleted until defined again", core.brokerName(), p.pattern(), p.pattern(), known.version());
            } else {
                warnIfConfigurationDisagrees(known);
            }
        }
    }

    // ---------------------------------------------------------------- API

    /**
     * Defines (or redefines) a destination for the whole federation with {@code policy}, whose pattern is the exact
     * destination name. Returns the new definition; its version beats every version this broker has seen.
     *
     * @throws IllegalArgumentException if the pattern is not a queue or topic name without wildcards
     * @throws IllegalStateException    in {@link ClusterConfig#masterBroker()} mode, while this broker is not the master
     *                                  and its link to the master is not up
     */
    public synchronized DestinationDefinition define(DestinationPolicy policy) {
        if (policy == null) {
            throw new IllegalArgumentException("policy must not be null");
        }
        requireMaster("define " + policy.pattern());
        DestinationDefinition d = new DestinationDefinition(policy.pattern(), policy, new DefinitionVersion(++counter, brokerId), false);
        apply(d);
        return d;
    }

    /**
     * Deletes a definition federation-wide: every broker forgets its policy and removes the queue and its messages
     * (a queue with consumers attached stays, as an ordinary auto-created one). Returns false if it was not defined.
     *
     * @throws IllegalStateException in {@link ClusterConfig#masterBroker()} mode, as {@link #define}
     */
    public synchronized boolean delete(String destination) {
        requireMaster("delete " + destination);
        DestinationDefinition known = definitions.get(destination);
        if (known == null || known.deleted()) {
            return false;
        }
        apply(new DestinationDefinition(destination, null, new DefinitionVersion(++counter, brokerId), true));
        return true;
    }

    /** masterBroker mode: a change is made on the master, or on a broker whose own link to the master is up. */
    private void requireMaster(String change) {
        String master = config.masterBroker();
        if (master == null || master.equals(core.brokerName()) || linkUp.test(master)) {
            return;
        }
        throw new IllegalStateException("broker " + core.brokerName() + " refuses to " + change + ": definitions change only "
                + "with the master broker '" + master + "' (masterBroker), and this broker's link to it is not up");
    }

    /** The live definitions, by name. */
    public List<DestinationDefinition> definitions() {
        List<DestinationDefinition> l = new ArrayList<>();
        for (DestinationDefinition d : definitions.values()) {
            if (!d.deleted()) {
                l.add(d);
            }
        }
        l.sort(Comparator.comparing(DestinationDefinition::destination));
        return l;
    }

    /** The definition of {@code destination}, a tombstone included; empty if this broker never heard of one. */
    public Optional<DestinationDefinition> definition(String destination) {
        return Optional.ofNullable(definitions.get(destination));
    }

    /** Tells {@code listener} of every definition this broker applies (its own and received), on the applying thread. */
    public void addListener(Consumer<DestinationDefinition> listener) {
        listeners.add(listener);
    }

    // ---------------------------------------------------------------- applying

    /** A definition received from a federation link: applied if newer than the one known, then passed on. */
    synchronized void merge(DestinationDefinition d) {
        counter = Math.max(counter, d.version().counter());
        DestinationDefinition known = definitions.get(d.destination());
        if (known != null && known.version().compareTo(d.version()) >= 0) {
            return; // known already, or beaten: this is what stops a definition going round a ring for ever
        }
        apply(d);
    }

    /** Stores, applies and publishes {@code d} (newer than any known). Under the monitor. */
    private void apply(DestinationDefinition d) {
        store.put(d);
        definitions.put(d.destination(), d);
        applyToCore(d);
        LOG.info("broker {}: {} {} (version {})", core.brokerName(), d.deleted() ? "deleted" : "defined", d.destination(), d.version());
        core.publish(DefinitionCodec.headers(d), DefinitionCodec.body(d));
        for (Consumer<DestinationDefinition> l : listeners) {
            try {
                l.accept(d);
            } catch (RuntimeException e) {
                LOG.warn("broker {}: definition listener {} failed on {}", core.brokerName(), l, d.destination(), e);
            }
        }
    }

    private void applyToCore(DestinationDefinition d) {
        if (d.deleted()) {
            int removed = core.undefine(d.destination());
            if (removed == -1) {
                LOG.info("broker {}: {} was deleted federation-wide but has consumers here: it stays until they leave, "
                        + "as an auto-created queue", core.brokerName(), d.destination());
            }
        } else {
            core.define(d.destination(), d.policy());
            warnIfConfigurationDisagrees(d);
        }
    }

    /** WARN when this broker's own configuration gives the destination another policy than the federation's. */
    private void warnIfConfigurationDisagrees(DestinationDefinition d) {
        DestinationPolicy own = null;
        String where = null;
        for (DestinationPolicy p : config.destinations()) {
            if (p.pattern().equals(d.destination())) {
                own = p;
                where = "[destination " + d.destination() + "]";
            }
        }
        if (own == null) {
            own = core.configuredExactPolicy(d.destination());
            where = "[policy " + d.destination() + "]";
        }
        if (own == null || own.equals(d.policy())) {
            return;
        }
        LOG.warn("broker {}: its configuration's {} says {}, but the federation's definition of {} (version {}) says {}; "
                        + "the federation's definition holds here", core.brokerName(), where, differences(own, d.policy(), true),
                d.destination(), d.version(), differences(own, d.policy(), false));
    }

    private static String differences(DestinationPolicy a, DestinationPolicy b, boolean first) {
        StringBuilder sb = new StringBuilder();
        var components = DestinationPolicy.class.getRecordComponents();
        for (var c : components) {
            try {
                Object va = c.getAccessor().invoke(a);
                Object vb = c.getAccessor().invoke(b);
                if (!c.getName().equals("pattern") && !java.util.Objects.equals(va, vb)) {
                    sb.append(sb.length() == 0 ? "" : ", ").append(c.getName()).append('=').append(first ? va : vb);
                }
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
        return sb.toString();
    }

    @Override
    public void close() {
        core.hook(ClusterHook.NONE);
        executor.shutdownNow();
        try {
            executor.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        store.close();
    }

    /** The broker core's calls: on I/O threads, so received definitions go to the executor. */
    private final class Hook implements ClusterHook {
        @Override
        public void received(StompHeaders headers, byte[] body) {
            DestinationDefinition d;
            try {
                d = DefinitionCodec.fromWire(headers, body);
            } catch (IllegalArgumentException e) {
                LOG.warn("broker {}: ignored a destination definition from a federation link: {}", core.brokerName(), e.getMessage());
                return;
            }
            try {
                executor.execute(() -> {
                    try {
                        merge(d);
                    } catch (RuntimeException e) {
                        LOG.warn("broker {}: could not apply the definition of {} (version {}): {}", core.brokerName(),
                                d.destination(), d.version(), e.getMessage(), e);
                    }
                });
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // closing
            }
        }

        @Override
        public List<Definition> snapshot() {
            List<Definition> l = new ArrayList<>();
            for (DestinationDefinition d : definitions.values()) {
                l.add(new Definition(DefinitionCodec.headers(d), DefinitionCodec.body(d)));
            }
            return l;
        }
    }
}
