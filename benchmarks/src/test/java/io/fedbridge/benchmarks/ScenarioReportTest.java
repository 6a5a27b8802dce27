package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.benchmarks.ScenarioReport.Aim;
import io.fedbridge.benchmarks.ScenarioReport.Metric;
import io.fedbridge.benchmarks.ScenarioReport.Sample;
import io.fedbridge.benchmarks.ScenarioReport.Scenario;
import io.fedbridge.benchmarks.ScenarioReport.Unit;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ScenarioReportTest {

    private static final Metric P99 = new Metric("p99", "p99 ms", Unit.MILLIS, false);
    private static final Metric MSGS = new Metric("msgs", "msg/s", Unit.RATE, true);

    @Test
    void shouldSayInHowManyInterleavedRunPairsALowerIsBetterAimHeldBesideTheMedians() {
        ScenarioReport r = report(P99, 1, new double[] {0.3, 1.4, 0.5, 0.3, 0.6}, new double[] {0.6, 0.4, 1.0, 0.5, 0.5});

        // medians 0.5 vs 0.5: not met; run by run fedbridge was lower in pairs 1, 3 and 4
        assertThat(printed(r)).contains("p99 ms 1.00x  (aim < 1x, lower is better: NOT met; held in 3 of 5 run pairs)");
    }

    @Test
    void shouldCountOnlyPairsBothTargetsCompletedForAHigherIsBetterAim() {
        ScenarioReport r = report(MSGS, 3, new double[] {31_000, 29_000, 40_000}, new double[] {10_000, 10_000});

        assertThat(printed(r)).contains("(aim >= 3x: met; held in 1 of 2 run pairs)");
    }

    @Test
    void shouldJudgeAnAimBetweenTheTwoTargetsItNamesAndPrintTheChosenMarkdownColumns() {
        List<Target> ts = List.of(Target.FEDBRIDGE_HA, Target.FEDBRIDGE, Target.ARTEMIS_HA);
        ScenarioReport r = new ScenarioReport("ha", ts, 1);
        r.scenario(new Scenario("s", "a scenario", "persistent", MSGS, List.of(), List.of(MSGS), true));
        r.aim(new Aim("HA >= half of unreplicated", "s", MSGS.key(), 0.5, false, Target.FEDBRIDGE_HA, Target.FEDBRIDGE));
        r.aim(new Aim("HA >= 2x Artemis HA", "s", MSGS.key(), 2, false, Target.FEDBRIDGE_HA, Target.ARTEMIS_HA));
        r.markdownColumns(ts, List.of(new ScenarioReport.Ratio(Target.FEDBRIDGE_HA, Target.FEDBRIDGE, "HA / unreplicated")));
        r.markdownRow("| failover | 1 | – | 2 | – |");
        double[] values = {30_000, 40_000, 10_000};
        for (int i = 0; i < ts.size(); i++) {
            r.add("s", ts.get(i), new Sample(Map.of(MSGS.key(), values[i]), 1, 1, 0, 0, 0));
        }

        assertThat(printed(r)).contains("HA >= half of unreplicated: msg/s 0.75x  (aim >= 0.5x: met; held in 1 of 1 run pairs)",
                "HA >= 2x Artemis HA: msg/s 3.00x  (aim >= 2x: met",
                "| ha scenario | fedbridge HA pair | fedbridge | Artemis", "| persistent, msg/s | 30,000 | 40,000 | 10,000 | 0.75x |",
                "| failover | 1 | – | 2 | – |");
    }

    private static ScenarioReport report(Metric m, double ratio, double[] fedbridge, double[] activemq) {
        ScenarioReport r = new ScenarioReport("bridge", List.of(Target.FEDBRIDGE, Target.ACTIVEMQ), fedbridge.length);
        r.scenario(new Scenario("s", "a scenario", "s", m, List.of(), List.of(m), true));
        r.aim(new Aim("the aim", "s", m.key(), ratio));
        for (double v : fedbridge) {
            r.add("s", Target.FEDBRIDGE, new Sample(Map.of(m.key(), v), 1, 1, 0, 0, 0));
        }
        for (double v : activemq) {
            r.add("s", Target.ACTIVEMQ, new Sample(Map.of(m.key(), v), 1, 1, 0, 0, 0));
        }
        return r;
    }

    private static String printed(ScenarioReport r) {
        StringWriter w = new StringWriter();
        try (PrintWriter out = new PrintWriter(w)) {
            r.print(out);
        }
        return w.toString();
    }
}
