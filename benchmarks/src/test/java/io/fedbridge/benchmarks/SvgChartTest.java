package io.fedbridge.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;

class SvgChartTest {

    @Test
    void shouldDrawWellFormedLinesWithMarkersAndSkipFailedMeasurements() throws Exception {
        String svg = SvgChart.lines("Heap <MiB> & more", "s", "MiB",
                List.of(new SvgChart.Series("B0", new double[] {0, 5, 10}, new double[] {10, Double.NaN, 30})),
                List.of(new SvgChart.Marker(4, "kill")));

        parse(svg);
        assertThat(svg).contains("Heap &lt;MiB&gt; &amp; more", "<polyline", "kill").doesNotContain("NaN");
    }

    @Test
    void shouldDrawWellFormedBarsPerCategoryAndSeries() throws Exception {
        String svg = SvgChart.bars("throughput", "msg/s", List.of("a", "b"),
                List.of(new SvgChart.Series("fedbridge", new double[0], new double[] {3, 4}),
                        new SvgChart.Series("ActiveMQ", new double[0], new double[] {1, Double.NaN})));

        parse(svg);
        assertThat(svg.split("<rect ").length - 1).as("background, 4 bars, 2 legend boxes").isEqualTo(7);
        assertThat(svg).doesNotContain("NaN");
    }

    @Test
    void shouldRoundTheAxisUpToANiceNumber() {
        assertThat(SvgChart.niceTop(0)).isEqualTo(1);
        assertThat(SvgChart.niceTop(32)).isEqualTo(50);
        assertThat(SvgChart.niceTop(1_800)).isEqualTo(2_000);
        assertThat(SvgChart.niceTop(230)).isEqualTo(250);
    }

    private static void parse(String svg) throws Exception {
        DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(new ByteArrayInputStream(svg.getBytes(StandardCharsets.UTF_8)));
    }
}
