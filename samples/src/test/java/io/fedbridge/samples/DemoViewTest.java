package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.samples.DemoFederation.Link;
import io.fedbridge.samples.LinkMonitor.Node;
import io.fedbridge.samples.LinkMonitor.Row;
import io.fedbridge.samples.LinkMonitor.Snapshot;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoViewTest {

    private static final Snapshot UP = new Snapshot(
            List.of(new Row(new Link("A", "B"), "UP", 5210.4, 12000, 37, 1, 1),
                    new Row(new Link("B", "C"), "UP", 5180, 9020, 12, 2, 1)),
            List.of(new Node("A", true, 1200), new Node("B", true, 30), new Node("C", true, 5)));
    private static final Snapshot B_STOPPED = new Snapshot(
            List.of(new Row(new Link("A", "B"), LinkMonitor.RETRYING, 0, 12000, 0, 0, 0),
                    new Row(new Link("B", "C"), LinkMonitor.BROKER_STOPPED, 0, 9020, 0, 0, 0)),
            List.of(new Node("A", true, 3000), new Node("B", false, -1), new Node("C", true, 0)));

    private final StringWriter text = new StringWriter();
    private final PrintWriter out = new PrintWriter(text, true);

    @Test
    void shouldShowOneRowPerLinkAndWhatEachBrokerHolds() {
        assertThat(DemoView.table(UP)).containsExactly(
                "link    state           fwd/s  forwarded  pending  consumers",
                "A -> B  UP               5210      12000       37          1",
                "B -> C  UP               5180       9020       12          2",
                "messages held  A 1200   B 30   C 5");
    }

    @Test
    void shouldSayWhichLinksRetryAndWhichBrokerIsStopped() {
        assertThat(DemoView.table(B_STOPPED)).containsExactly(
                "link    state           fwd/s  forwarded  pending  consumers",
                "A -> B  RETRYING            0      12000        0          0",
                "B -> C  STOPPED             0       9020        0          0",
                "messages held  A 3000   B (stopped)   C 0");
    }

    @Test
    void shouldPrintAPlainLineEachQuarterAndTheTableOnceAtTheEnd() {
        DemoView view = DemoView.of(out, false);

        view.refresh(status(100, 10, UP));
        view.refresh(status(100, 26, UP));
        view.refresh(status(100, 30, UP));
        view.event("B stopped");
        view.refresh(status(100, 60, B_STOPPED));
        view.finish(status(100, 100, UP));
        view.refresh(status(100, 100, UP));
        view.event("after the end");

        assertThat(text.toString().lines()).containsExactly(
                "received 26/100 (26%), sent 100; A -> B UP, B -> C UP",
                "B stopped",
                "received 60/100 (60%), sent 100; A -> B RETRYING, B -> C STOPPED",
                "received 100/100 (100%), sent 100; A -> B UP, B -> C UP",
                "link    state           fwd/s  forwarded  pending  consumers",
                "A -> B  UP               5210      12000       37          1",
                "B -> C  UP               5180       9020       12          2",
                "messages held  A 1200   B 30   C 5");
    }

    @Test
    void shouldRedrawTheLiveViewInPlaceAndKeepEventsAboveIt() {
        DemoView view = DemoView.of(out, true);

        view.refresh(status(100, 10, UP));
        view.event("B stopped");
        view.finish(status(100, 100, UP));

        String s = text.toString();
        int block = 1 + DemoView.table(UP).size();
        assertThat(s).contains("\u001b[" + block + "F\u001b[JB stopped");
        assertThat(s).endsWith("\u001b[2Kmessages held  A 1200   B 30   C 5" + System.lineSeparator());
        assertThat(s).contains("received 100/100  [" + "#".repeat(30) + "] 100%");
    }

    private static DemoView.Status status(int total, int received, Snapshot snapshot) {
        return new DemoView.Status(total, total, received, 1_000_000_000L, snapshot);
    }
}
