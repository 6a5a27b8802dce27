package io.fedbridge.broker.management.internal;

import io.fedbridge.broker.internal.ManagedCore;
import io.fedbridge.broker.internal.ManagementHook;
import io.fedbridge.broker.management.ConsumerInfo;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.management.ManagementEvent;
import io.fedbridge.core.StompHeaders;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes management events on {@link ManagementDestinations#EVENTS}, in the order they happened, from the management
 * thread (the core calls in on I/O threads and under queue locks). At most {@link #MAX_QUEUED} events wait; beyond
 * that (a dead-letter storm) they are dropped and counted in the log. Temporary destinations and the federation's own
 * ({@code fedbridge.*}) make no consumer or destination events.
 */
public final class EventPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(EventPublisher.class);
    static final int MAX_QUEUED = 10_000;

    /** How requests reach the request handler. */
    public interface Requests {
        void handle(String user, StompHeaders headers, byte[] body);
    }

    private final String broker;
    private final ManagedCore core;
    private final ExecutorService executor;
    private final AtomicInteger queued = new AtomicInteger();
    private final AtomicInteger dropped = new AtomicInteger();
    private final List<Consumer<ManagementEvent>> listeners = new CopyOnWriteArrayList<>();

    public EventPublisher(String broker, ManagedCore core, ExecutorService executor) {
        this.broker = broker;
        this.core = core;
        this.executor = executor;
    }

    public void addListener(Consumer<ManagementEvent> listener) {
        listeners.add(listener);
    }

    /** Publishes an event of {@code type} with {@code data} (null values left out). */
    public void publish(String type, Map<String, ?> data) {
        Map<String, Object> clean = new LinkedHashMap<>();
        data.forEach((k, v) -> {
            if (v != null) {
                clean.put(k, v);
            }
        });
        ManagementEvent event = new ManagementEvent(ManagementDestinations.SCHEMA_VERSION, type, broker, System.currentTimeMillis(), clean);
        if (queued.incrementAndGet() > MAX_QUEUED) {
            queued.decrementAndGet();
            if (dropped.incrementAndGet() % 1000 == 1) {
                LOG.warn("broker {}: management events arrive faster than they are published; {} dropped so far", broker, dropped.get());
            }
            return;
        }
        try {
            executor.execute(() -> {
                queued.decrementAndGet();
                deliver(event);
            });
        } catch (RejectedExecutionException e) {
            queued.decrementAndGet(); // the broker is stopping
        }
    }

    private void deliver(ManagementEvent event) {
        try {
            StompHeaders h = StompHeaders.of(StompHeaders.CONTENT_TYPE, "application/json");
            h.add(ManagementDestinations.EVENT_TYPE, event.type());
            core.publishEvent(h, Json.bytes(event));
        } catch (RuntimeException e) {
            LOG.warn("broker {}: could not publish management event {}: {}", broker, event.type(), e.toString());
        }
        for (Consumer<ManagementEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                LOG.warn("broker {}: management event listener {} failed on {}: {}", broker, l, event.type(), e.toString());
            }
        }
    }

    static boolean isQuiet(String destination) {
        return destination.startsWith("/temp-") || destination.startsWith("/topic/fedbridge.")
                || ManagementDestinations.isReserved(destination);
    }

    /** The core's hook: requests go to {@code requests} on the management thread, events are published. */
    public ManagementHook hook(Requests requests) {
        return new ManagementHook() {
            @Override
            public void request(String user, StompHeaders headers, byte[] body) {
                try {
                    executor.execute(() -> requests.handle(user, headers, body));
                } catch (RejectedExecutionException e) {
                    LOG.debug("broker {}: management request of {} dropped: stopping", broker, user);
                }
            }

            @Override
            public void consumerAdded(ConsumerInfo c) {
                if (!isQuiet(c.destination())) {
                    publish("consumer-added", consumer(c));
                }
            }

            @Override
            public void consumerRemoved(ConsumerInfo c) {
                if (!isQuiet(c.destination())) {
                    publish("consumer-removed", consumer(c));
                }
            }

            @Override
            public void destinationCreated(String destination) {
                if (!isQuiet(destination)) {
                    publish("destination-created", Map.of("destination", destination));
                }
            }

            @Override
            public void destinationDeleted(String destination) {
                if (!isQuiet(destination)) {
                    publish("destination-deleted", Map.of("destination", destination));
                }
            }

            @Override
            public void deadLettered(String from, String messageId, String reason) {
                publish("message-dead-lettered", Map.of("destination", from, "messageId", messageId, "reason", reason));
            }

            @Override
            public void loginFailed(String login, String remoteAddress, String reason) {
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("login", login);
                d.put("remoteAddress", remoteAddress);
                d.put("reason", reason);
                publish("login-failed", d);
            }

            @Override
            public void memoryLimit(boolean reached, Map<String, Object> data) {
                publish(reached ? "memory-limit-reached" : "memory-limit-released", data);
            }
        };
    }

    private static Map<String, Object> consumer(ConsumerInfo c) {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("connection", c.connection());
        d.put("subscription", c.subscription());
        d.put("destination", c.destination());
        d.put("selector", c.selector());
        d.put("network", c.network());
        d.put("durable", c.durable());
        return d;
    }
}
