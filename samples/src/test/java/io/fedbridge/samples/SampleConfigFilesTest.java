package io.fedbridge.samples;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerConfigFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The example config files in {@code samples/config} load, and {@code docs/configuration.md} covers their keys. */
class SampleConfigFilesTest {

    /** Tests run in the module's directory. */
    private static final Path CONFIG_DIR = Path.of("config");
    private static final Path REFERENCE = CONFIG_DIR.resolve("broker.conf");
    /** The ha.* keys have a reference of their own: with them, a node is an HA member, not a stand-alone broker. */
    private static final Path HA_REFERENCE = CONFIG_DIR.resolve("ha-member.conf");
    private static final Path DOC = Path.of("..", "docs", "configuration.md");
    /** A {@code key = value} line: not a comment, not a section header. */
    private static final Pattern KEY_LINE = Pattern.compile("\\s*([^#;\\[\\s=][^=]*?)\\s*=.*");

    static List<Path> sampleConfigs() throws IOException {
        try (Stream<Path> files = Files.list(CONFIG_DIR)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".conf")).sorted().toList();
        }
    }

    @Test
    void shouldShipTheReferenceAndTheThreeNodeExample() throws IOException {
        assertThat(sampleConfigs()).extracting(f -> f.getFileName().toString())
                .contains("broker.conf", "three-node-A.conf", "three-node-B.conf", "three-node-C.conf");
    }

    @ParameterizedTest
    @MethodSource("sampleConfigs")
    void shouldLoadEverySampleConfig(Path file) {
        BrokerConfig config = BrokerConfigFile.load(file).build();

        assertThat(config.listeners()).as("%s listens somewhere", file).isNotEmpty();
    }

    @ParameterizedTest
    @CsvSource({"A, 61613, 61614", "B, 61614, 61615", "C, 61615, 61613"})
    void shouldDescribeAThreeNodeRingOnLoopback(String node, int port, int nextPort) {
        BrokerConfig config = BrokerConfigFile.load(CONFIG_DIR.resolve("three-node-" + node + ".conf")).build();

        assertThat(config.name()).isEqualTo(node);
        assertThat(config.listeners()).containsExactly("tcp://127.0.0.1:" + port);
        assertThat(config.networkConnectors()).singleElement().asString()
                .startsWith("static:(tcp://127.0.0.1:" + nextPort + ")");
    }

    @Test
    void shouldUseEveryKeyInTheReferenceExample() throws IOException {
        Set<String> all = new LinkedHashSet<>(BrokerConfigFile.brokerKeys());
        all.addAll(BrokerConfigFile.policyKeys());
        Set<String> ha = new LinkedHashSet<>();
        all.removeIf(k -> k.startsWith("ha.") && ha.add(k));

        assertThat(keysOf(REFERENCE)).containsExactlyInAnyOrderElementsOf(all);
        assertThat(keysOf(HA_REFERENCE)).containsAll(ha);
        assertThat(BrokerConfigFile.load(HA_REFERENCE).build().ha()).isNotNull();
    }

    @Test
    void shouldDocumentEveryKeyOfTheReferenceExample() throws IOException {
        String doc = Files.readString(DOC);

        assertThat(keysOf(HA_REFERENCE)).isNotEmpty().allSatisfy(key ->
                assertThat(doc).as("docs/configuration.md has a table row for '%s'", key).contains("| `" + key + "` |"));
        assertThat(keysOf(REFERENCE)).isNotEmpty().allSatisfy(key ->
                assertThat(doc).as("docs/configuration.md has a table row for '%s'", key).contains("| `" + key + "` |"));
        assertThat(BrokerConfigFile.brokerKeys()).allSatisfy(key -> assertThat(doc).contains("| `" + key + "` |"));
        assertThat(BrokerConfigFile.policyKeys()).allSatisfy(key -> assertThat(doc).contains("| `" + key + "` |"));
    }

    private static Set<String> keysOf(Path file) throws IOException {
        Set<String> keys = new LinkedHashSet<>();
        for (String line : Files.readAllLines(file)) {
            Matcher m = KEY_LINE.matcher(line);
            if (m.matches()) {
                keys.add(m.group(1));
            }
        }
        return keys;
    }
}
