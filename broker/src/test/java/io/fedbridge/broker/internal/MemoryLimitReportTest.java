package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.store.InMemoryMessageStore;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the operator hears of producers paused by memoryLimit: one report per episode however often the producers flap,
 * reminders while it lasts, a release once quiet, and a new episode reported afresh. Driven through the listener calls
 * {@link MemoryUsage} makes, with short quiet and reminder periods.
 */
class MemoryLimitReportTest {

    private static final long QUIET = TimeUnit.MILLISECONDS.toNanos(300);
    private static final Duration WAIT = Duration.ofSeconds(10);

    private record Event(boolean reached, Map<String, Object> data) {
    }

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final BrokerCore core = new BrokerCore(BrokerConfig.ofDefaults("report"), "report-id", new InMemoryMessageStore(),
            Clock.systemUTC(), null, List.of(), scheduler);
    private final List<Event> events = new CopyOnWriteArrayList<>();

    MemoryLimitReportTest() {
        core.hook = new ManagementHook() {
            @Override
            public void memoryLimit(boolean reached, Map<String, Object> data) {
                events.add(new Event(reached, data));
            }
        };
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
        core.close();
    }

    @Test
    void shouldReportAProducerFlappingAtTheLimitAsOneEpisode() {
        MemoryLimitReport report = new MemoryLimitReport(core, QUIET, TimeUnit.MINUTES.toNanos(1));
        for (int i = 0; i < 25; i++) { // a consumer draining a full broker: pause, resume, pause...
            report.reached(1000, 1000);
            report.released(600, 1, TimeUnit.MILLISECONDS.toNanos(2));
        }
        await("the episode ends a quiet period after the last pause").atMost(WAIT).until(() -> events.size() == 2);
        assertThat(events.get(0).reached()).isTrue();
        assertThat(events.get(0).data()).containsEntry("pauses", 1).containsEntry("limit", 1000L).containsEntry("largest", List.of());
        assertThat(events.get(1).reached()).isFalse();
        assertThat(events.get(1).data()).containsEntry("pauses", 25).containsEntry("pausedMillis", 50L);
    }

    @Test
    void shouldRemindWhileProducersStayPausedAndStopWhenTheEpisodeEnds() {
        MemoryLimitReport report = new MemoryLimitReport(core, QUIET, TimeUnit.MILLISECONDS.toNanos(100));
        report.reached(1000, 1000);
        await("two reminders while the producer stays paused").atMost(WAIT).until(() -> events.size() >= 3);
        assertThat(events).allMatch(Event::reached);
        assertThat((Long) events.get(2).data().get("millis")).isGreaterThanOrEqualTo(200);
        assertThat(events.get(2).data()).containsEntry("pauses", 1);

        report.released(600, 1, TimeUnit.MILLISECONDS.toNanos(250));
        await("released once quiet").atMost(WAIT).until(() -> !events.get(events.size() - 1).reached());
        int afterRelease = events.size();
        report.reached(1000, 1000); // a new episode: reported at once, and its own reminders only
        await("the new episode's report").atMost(WAIT).until(() -> events.size() >= afterRelease + 1);
        Event second = events.get(afterRelease);
        assertThat(second.reached()).isTrue();
        assertThat(second.data()).containsEntry("pauses", 1).containsEntry("millis", 0L);
        await("the new episode's reminder").atMost(WAIT).until(() -> events.size() >= afterRelease + 2);
        assertThat(events.subList(afterRelease, events.size())).as("no release while paused").allMatch(Event::reached);
        assertThat((Long) events.get(afterRelease + 1).data().get("millis")).isGreaterThanOrEqualTo(100);
    }
}
