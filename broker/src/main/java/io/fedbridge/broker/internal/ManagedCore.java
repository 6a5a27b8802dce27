package io.fedbridge.broker.internal;

import io.fedbridge.broker.DestinationStats;
import io.fedbridge.broker.management.BrowsedMessage;
import io.fedbridge.broker.management.ConnectionInfo;
import io.fedbridge.broker.management.ConsumerInfo;
import io.fedbridge.broker.management.DurableSubscriptionInfo;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.management.ManagementException;
import io.fedbridge.broker.management.TopicInfo;
import io.fedbridge.core.StompHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Management's way into the broker core (io.fedbridge.broker.management sees nothing else of it): reads queues,
 * topics, connections and consumers, and carries out queue and connection methods. Thread-safe; the methods that
 * wait ({@link #connections}, {@link #move}) must not run on an I/O thread.
 */
public final class ManagedCore {

    private final BrokerCore core;

    /** The broker's HA group, or null. */
    public HaGate haGate() {
        return core.haGate;
    }

    /** Single queues replicated from and to other brokers. */
    public QueueReplicas replicas() {
        return core.replicas;
    }

    public ManagedCore(BrokerCore core) {
        this.core = core;
    }

    /** Hands requests and events to {@code hook} from now on. */
    public void hook(ManagementHook hook) {
        core.hook = hook;
    }

    public String brokerName() {
        return core.config.name();
    }

    // ---------------------------------------------------------------- reading

    /** Counters of every queue (temporary ones included), by name. */
    public Map<String, DestinationStats> queues() {
        Map<String, DestinationStats> m = new TreeMap<>();
        for (QueueDestination q : core.queues.values()) {
            m.put(q.name, q.snapshot());
        }
        return m;
    }

    public List<TopicInfo> topics(long now) {
        Map<String, long[]> sums = new TreeMap<>();
        for (String t : core.topics.topics()) {
            sums.put(t, new long[4]);
        }
        for (TopicRegistry.Registration r : core.topics.registrations()) {
            DestinationStats s = r.queue().snapshot();
            long[] sum = sums.computeIfAbsent(r.pattern(), k -> new long[4]);
            sum[0]++;
            sum[1] += s.pending();
            sum[2] += s.enqueued();
            sum[3] += s.dequeued();
        }
        List<TopicInfo> l = new ArrayList<>(sums.size());
        sums.forEach((t, s) -> l.add(new TopicInfo(t, (int) s[0], (int) s[1], s[2], s[3], now)));
        return l;
    }

    public List<DurableSubscriptionInfo> durableSubscriptions(long now) {
        List<DurableSubscriptionInfo> l = new ArrayList<>();
        for (BrokerCore.DurableSubscription d : core.durables.values()) {
            DestinationStats s = d.queue().snapshot();
            var i = d.info();
            l.add(new DurableSubscriptionInfo(i.clientId(), i.name(), i.destination(), i.selector(), d.queue().hasActiveConsumer(),
                    s.pending(), s.enqueued(), s.dequeued(), now));
        }
        l.sort(java.util.Comparator.comparing(DurableSubscriptionInfo::clientId).thenComparing(DurableSubscriptionInfo::name));
        return l;
    }

    /** A connection and its consumers, read at one moment. */
    public record Described(ConnectionInfo connection, List<ConsumerInfo> consumers) {
    }

    /** Every connection with its consumers, each read on its own event loop (waits up to {@code timeout} for them). */
    public List<Described> connections(Duration timeout) {
        List<CompletableFuture<Described>> all = new ArrayList<>();
        for (ServerSession s : core.sessions) {
            all.add(s.describe());
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        List<Described> l = new ArrayList<>(all.size());
        for (CompletableFuture<Described> f : all) {
            try {
                Described d = f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (d != null) {
                    l.add(d);
                }
            } catch (TimeoutException | ExecutionException e) {
                // a connection whose event loop is stuck or gone is left out
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        l.sort(java.util.Comparator.comparingLong(d -> d.connection().connectedAt()));
        return l;
    }

    static Described describe(String id, String remote, String user, String clientId, String version, boolean link,
                              String state, long connectedAt, List<ServerConsumer> consumers) {
        long now = System.currentTimeMillis();
        List<ConsumerInfo> cs = new ArrayList<>(consumers.size());
        for (ServerConsumer c : consumers) {
            cs.add(consumerInfo(c, now));
        }
        return new Described(new ConnectionInfo(id, remote, user, clientId, version, link, state, connectedAt, cs.size(), now), cs);
    }

    private static ConsumerInfo consumerInfo(ServerConsumer c, long now) {
        int inflight;
        synchronized (c.queue) {
            inflight = c.inflightCount();
        }
        return new ConsumerInfo(c.session.id(), c.subscriptionId, c.subscribedDestination, c.ackMode.name(), c.selectorText,
                c.prefetch, c.priority, c.network, c.durable, inflight, now);
    }

    // ---------------------------------------------------------------- events from the core

    static void consumerAdded(BrokerCore core, ServerConsumer c) {
        if (core.hook != ManagementHook.NONE) {
            core.hook.consumerAdded(consumerInfo(c, System.currentTimeMillis()));
        }
    }

    static void consumerRemoved(BrokerCore core, ServerConsumer c) {
        if (core.hook != ManagementHook.NONE) {
            core.hook.consumerRemoved(consumerInfo(c, System.currentTimeMillis()));
        }
    }

    // ---------------------------------------------------------------- methods

    private QueueDestination existing(String destination) {
        QueueDestination q = destination == null ? null : core.queues.get(destination);
        if (q == null) {
            throw ManagementException.notFound("no queue " + destination + " on broker " + brokerName());
        }
        return q;
    }

    private static void requireQueueName(String what, String destination) {
        if (destination == null || !(destination.startsWith(Destinations.QUEUE) || destination.startsWith(Destinations.TEMP_QUEUE))
                || Destinations.validate(destination) != null || Destinations.isWildcard(destination)) {
            throw ManagementException.badRequest(what + " must be a queue such as /queue/orders, but was "
                    + (destination == null ? "missing" : "'" + destination + "'"));
        }
        if (ManagementDestinations.isReserved(destination)) {
            throw ManagementException.badRequest(destination + " is reserved for the management API");
        }
    }

    /** Creates a queue; false if it existed already. */
    public boolean createQueue(String destination) {
        requireQueueName("destination", destination);
        if (core.queues.containsKey(destination)) {
            return false;
        }
        String refused = core.refuseNewDestination(destination);
        if (refused != null) {
            throw new ManagementException(ManagementException.Kind.FAILED, refused);
        }
        core.queue(destination);
        return true;
    }

    /** Deletes a queue without consumers and the messages it holds; returns how many it held. */
    public int deleteQueue(String destination) {
        QueueDestination q = existing(destination);
        core.replicas.requireNotReplica(destination, "delete");
        if (q.hasConsumers()) {
            throw new ManagementException(ManagementException.Kind.FAILED, "queue " + destination + " on broker " + brokerName()
                    + " has " + q.snapshot().consumers() + " consumer(s); close them (or their connections) first");
        }
        int purged = purge(q);
        if (core.queues.remove(destination, q)) {
            q.delete();
            core.hook.destinationDeleted(destination);
        }
        return purged;
    }

    /** Removes every message waiting in a queue (not those delivered and awaiting acknowledgement); returns how many. */
    public int purgeQueue(String destination) {
        core.replicas.requireNotReplica(destination, "purge");
        return purge(existing(destination));
    }

    private int purge(QueueDestination q) {
        List<QueueEntry> taken = q.takePending(Integer.MAX_VALUE);
        for (QueueEntry e : taken) {
            core.release(e);
        }
        return taken.size();
    }

    /** The first {@code count} waiting messages in delivery order, left in the queue; bodies cut at {@code maxBody} chars. */
    public List<BrowsedMessage> browse(String destination, int count, int maxBody) {
        List<BrowsedMessage> l = new ArrayList<>();
        for (QueueEntry e : existing(destination).peekPending(count)) {
            BrokerMessage m = e.message;
            Map<String, String> headers = new LinkedHashMap<>();
            for (int i = 0; i < m.headers.size(); i++) {
                headers.putIfAbsent(m.headers.name(i), m.headers.value(i));
            }
            headers.put(StompHeaders.DESTINATION, m.destination);
            String body = new String(m.body, StandardCharsets.UTF_8);
            boolean cut = body.length() > maxBody;
            l.add(new BrowsedMessage(m.messageId, m.destination, headers, cut ? body.substring(0, maxBody) : body, m.body.length,
                    cut, e.redeliveryCount, m.persistent, m.priority));
        }
        return l;
    }

    /**
     * Moves up to {@code count} waiting messages to another destination (stored there first if persistent), in order;
     * a message the target refuses goes back to its queue. Returns how many moved.
     */
    public int move(String from, String to, int count, Duration timeout) {
        QueueDestination q = existing(from);
        core.replicas.requireNotReplica(from, "move messages of");
        String invalid = to == null ? "missing" : Destinations.validate(to);
        if (invalid != null || Destinations.isWildcard(to) || ManagementDestinations.isReserved(to)) {
            throw ManagementException.badRequest("to must be a destination such as /queue/orders.retry, but was "
                    + (to == null ? "missing" : "'" + to + "'") + (invalid != null && to != null ? " (" + invalid + ")" : ""));
        }
        if (to.equals(from)) {
            throw ManagementException.badRequest("to must differ from the queue moved from, but both are " + from);
        }
        int moved = 0;
        String failure = null;
        for (QueueEntry e : q.takePending(count)) {
            if (failure != null) {
                q.enqueue(e);
                continue;
            }
            try {
                core.route(to, e.message.headers, e.message.body).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
                core.release(e);
                moved++;
            } catch (ExecutionException | TimeoutException ex) {
                failure = ex instanceof ExecutionException && ex.getCause() != null ? ex.getCause().getMessage() : ex.toString();
                q.enqueue(e);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                q.enqueue(e);
                failure = "interrupted";
            }
        }
        if (failure != null) {
            throw new ManagementException(ManagementException.Kind.FAILED, "moved " + moved + " message(s) from " + from + " to "
                    + to + " on broker " + brokerName() + ", then " + to + " refused one: " + failure);
        }
        return moved;
    }

    /** Closes a connection with an ERROR saying {@code why}; false if there is none with that id. */
    public boolean closeConnection(String id, String why) {
        for (ServerSession s : core.sessions) {
            if (s.id().equals(id)) {
                s.abort(why);
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- answers and events

    /** Delivers a reply to {@code destination} (a request's reply-to). */
    public void reply(String destination, StompHeaders headers, byte[] body) {
        core.route(destination, headers, body);
    }

    /**
     * Publishes an event to the local subscribers of the events topic: never to a bridge's network subscription (the
     * topic is this broker's alone, and a peer refuses SENDs to it). Non-persistent.
     */
    public void publishEvent(StompHeaders headers, byte[] body) {
        for (TopicRegistry.Registration r : core.topics.matching(ManagementDestinations.EVENTS, headers)) {
            QueueDestination q = r.queue();
            if (q.hasNetworkConsumer()) {
                continue;
            }
            BrokerMessage m = core.newMessage(ManagementDestinations.EVENTS, headers, body);
            core.memory.reserve(m.size);
            q.enqueue(new QueueEntry(m, q.storeKey, 0));
        }
    }
}
