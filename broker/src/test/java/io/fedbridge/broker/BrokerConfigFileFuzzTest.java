package io.fedbridge.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.fedbridge.core.testing.Fuzz;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Fuzzes {@link BrokerConfigFile#parse}: a file built from sections, keys, values, comments, quotes and
 * would-be continuations, or a valid file with random edits, either loads or is rejected with a
 * {@link ConfigFileException} that names the file, a line of it, and the key when the line is a key's;
 * nothing else is thrown, and large lines are handled in linear time. Inputs come from {@link Fuzz}: the same ones
 * in every build, fifty times as many with {@code -Dfedbridge.soak=true}.
 */
class BrokerConfigFileFuzzTest {

    private static final String SOURCE = "fuzz.conf";
    /** An empty directory: relative paths (data, users, keyStore, ...) resolve into it and find nothing. */
    private static final Path BASE = emptyDirectory();

    private static final String VALID = """
            # a broker
            name = A
            listen = tcp://127.0.0.1:61613, tcp://127.0.0.1:61623   # two
            data = data/A
            memoryLimit = 256MiB
            heartBeat = 10s
            network = static:(tcp://127.0.0.1:61614)?networkTTL=2
            maxFrameSize = 1MiB

            [policy /queue/orders.>]
            maxNumMsgs = 100000
            limitBehavior = FLOW_CONTROL
            ; a comment
            [policy >]
            useDMQ = true
            maxTotalMsgBytes = 1.5GB

            [security]
            allowAnonymous = true
            maximumConnectionsPerAddress = 50
            handshakeTimeout = 5s
            """;

    private static final List<String> BROKER_KEYS = List.of("name", "listen", "data", "durability", "memoryLimit",
            "heartBeat", "inDoubtHold", "ioThreads", "defaultPrefetch", "maxFrameSize", "maxHeaders", "maxHeaderLength",
            "network");
    private static final List<String> POLICY_KEYS = List.of("maxNumMsgs", "maxTotalMsgBytes", "maxBytesPerMsg",
            "maxNumProducers", "maxNumActiveConsumers", "consumerFlowLimit", "limitBehavior", "useDMQ",
            "maxRedeliveries", "localDeliveryPreferred", "isLocalOnly");
    private static final List<String> SECURITY_KEYS = List.of("users", "authorization", "allowAnonymous",
            "maxFailedLogins", "loginLockout", "maxLoginLockout", "authenticationThreads", "maximumConnections",
            "maximumConnectionsPerAddress", "keyStore", "keyStorePassword", "keyStoreType", "trustStore",
            "needClientAuth", "enabledProtocols", "verifyHostName", "handshakeTimeout");
    private static final List<String> OTHER_KEYS = List.of("memoryLimt", "Name", "key with space", "[x", "=", "#",
            "\u00e9", "transport.x");

    private static final List<String> VALUES = List.of(
            "A", "b-2", "", " ", "0", "1", "-1", "+7", "65536", "2147483648", "9223372036854775808", "1.5", ".5",
            "64KiB", "1.5GB", "1.2B", "10 MiB", "1e3", "-5MiB", "5s", "250ms", "1m30s", "PT5S", "-PT1S", "5x",
            "true", "FALSE", "yes", "async", "SYNC", "flow-control", "DISCARD", "tcp://127.0.0.1:61613",
            "ssl://127.0.0.1:0", "tcp://a:1, tcp://b:2", "static:(tcp://h:1,tcp://h:2)?networkTTL=2", "tcp://a:1,,",
            "failover:(tcp://a:1", "vm://x", "data/A", "/abs/dir", "..", "\0", "users.properties", "TLSv1.3",
            "PKCS12", "\"quoted value\"", "'single'", "a \\", "\\", "# not a comment", "v # comment", "v;x", "v ;x",
            "\u00e9t\u00e9", "\ud83d", "x".repeat(300));

    private static final List<String> SECTIONS = List.of("[policy /queue/a.>]", "[policy >]", "[policy  /topic/x ]",
            "[security]", "[ security ]", "[policy]", "[policy ]", "[unknown]", "[]", "[", "]", "[policy a b]",
            "[Security]", "[policy /queue/a.>] # c", "[[policy x]]");

    /** What {@code \R} splits lines at. */
    private static final String LINE_BREAKS = "\n\u000b\f\r\u0085\u2028\u2029";

    /** One generated line; {@code key} is the key the parser will see, if it is a key line. */
    record Line(String text, String key) {
    }

    // ------------------------------------------------------------------------------------------- properties

    @Test
    void generatedFilesLoadOrAreRejectedNamingTheLineAndKey() {
        Fuzz.run("generatedFilesLoadOrAreRejectedNamingTheLineAndKey", Fuzz.tries(1500), random -> {
            List<Line> lines = Fuzz.list(random, 0, 14, BrokerConfigFileFuzzTest::line);
            String eol = Fuzz.pick(random, "\n", "\r\n", "\r");
            StringBuilder text = new StringBuilder();
            lines.forEach(l -> text.append(l.text()).append(eol));
            ConfigFileException e = loadOrReject(text.toString());
            if (e != null && e.line() > 0 && e.line() <= lines.size()) {
                String key = lines.get(e.line() - 1).key();
                if (key != null) {
                    assertThat(e.getMessage()).as("names the key of line %d", e.line()).contains(key);
                }
            }
        });
    }

    @Test
    void mutatedValidFilesLoadOrAreRejected() {
        Fuzz.run("mutatedValidFilesLoadOrAreRejected", Fuzz.tries(1500), random -> {
            String text = VALID;
            for (Edit e : Fuzz.list(random, 1, 5, BrokerConfigFileFuzzTest::edit)) {
                text = e.apply(text);
            }
            loadOrReject(text);
        });
    }

    @Test
    void theValidFileLoads() {
        assertThat(loadOrReject(VALID)).isNull();
    }

    // ------------------------------------------------------------------------------------------- large inputs

    @Test
    void largeLinesAreHandledInLinearTime() {
        int n = 1 << 20;
        String digits = "9".repeat(n);
        assertRejectedQuickly("x".repeat(n) + " = 1", 1, "unknown key");
        assertRejectedQuickly("name = A\n[policy >]\n" + "x".repeat(n) + " = 1", 3, "unknown key");
        assertRejectedQuickly("[security]\n" + "x".repeat(n) + " = 1", 2, "unknown key");
        assertRejectedQuickly("memoryLimit = " + digits, 1, "memoryLimit");
        assertRejectedQuickly("memoryLimit = " + digits + "MiB", 1, "memoryLimit");
        assertRejectedQuickly("memoryLimit = 1." + digits + "1KiB", 1, "memoryLimit");
        assertRejectedQuickly("ioThreads = -" + digits, 1, "ioThreads");
        assertRejectedQuickly("[policy >]\nmaxNumMsgs = " + digits, 2, "maxNumMsgs");
        assertRejectedQuickly("heartBeat = " + digits + "x", 1, "heartBeat");
        assertRejectedQuickly("listen = tcp://" + "h".repeat(n) + ":99999", 1, "listen");
        assertRejectedQuickly("network = " + "failover:(".repeat(n / 10), 1, "network");
        assertRejectedQuickly("[policy " + "x".repeat(n), 1, "not 'key = value'");
        assertRejectedQuickly("x".repeat(n), 1, "not 'key = value'");
        assertRejectedQuickly("name = A # " + "#".repeat(n) + "\n".repeat(n) + "=", n + 1, "not 'key = value'");
        assertThat(loadQuickly("memoryLimit = " + "0".repeat(n) + "1.5" + "0".repeat(n) + "MiB").build().memoryLimit())
                .isEqualTo(1_572_864L);
        assertThat(loadQuickly("[policy >]\nmaxNumMsgs = +" + "0".repeat(n) + "42").build().policies().get(0)
                .maxNumMsgs()).isEqualTo(42);
    }

    // ------------------------------------------------------------------------------------------- the checks

    /** Loads the text, or checks the rejection and returns it. */
    private static ConfigFileException loadOrReject(String text) {
        try {
            BrokerConfigFile.parse(text, SOURCE, BASE);
            return null;
        } catch (ConfigFileException e) {
            int lines = text.split("\\R", -1).length; // as the parser counts them
            assertThat(e.source()).isEqualTo(SOURCE);
            assertThat(e.line()).isBetween(0, lines);
            assertThat(e.getMessage()).startsWith(e.line() > 0 ? SOURCE + ":" + e.line() + ": " : SOURCE + ": ");
            assertThat(e.getMessage().substring(e.getMessage().indexOf(": ") + 2)).isNotBlank();
            return e;
        }
    }

    private static void assertRejectedQuickly(String text, int line, String problem) {
        assertTimeoutPreemptively(Duration.ofSeconds(30), () -> assertThatThrownBy(
                () -> BrokerConfigFile.parse(text, SOURCE, BASE))
                .isExactlyInstanceOf(ConfigFileException.class)
                .hasMessageStartingWith(SOURCE + ":" + line + ": ")
                .hasMessageContaining(problem));
    }

    private static BrokerConfig.Builder loadQuickly(String text) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> BrokerConfigFile.parse("name = A\n" + text, SOURCE, BASE));
    }

    // ------------------------------------------------------------------------------------------- generators

    private static final List<String> EDIT_TOKENS = editTokens();

    /** A key line six times in nine, a section header two, anything else one. */
    private static Line line(Random random) {
        int kind = random.nextInt(9);
        if (kind < 6) {
            String key = key(random);
            String eq = Fuzz.pick(random, " = ", "=", "  =\t", " := ");
            String value = Fuzz.oneIn(random, 9) ? valueText(random) : Fuzz.pick(random, VALUES);
            String comment = Fuzz.pick(random, "", "", " # c", "; c", "\t;c");
            return new Line(key + eq + value + comment, isKeyLine(key, eq, value) ? key : null);
        }
        if (kind < 8) {
            return new Line(Fuzz.pick(random, SECTIONS), null);
        }
        return new Line(Fuzz.pick(random, "", "   ", "# comment", "; comment", "  # indented", "no equals sign",
                "\ufeffname = A", "name = A \\", "\\", "\"", "=value"), null);
    }

    /** A broker, policy, security or other key, weighed 4, 4, 3 and 1. */
    private static String key(Random random) {
        int kind = random.nextInt(12);
        return Fuzz.pick(random, kind < 4 ? BROKER_KEYS : kind < 8 ? POLICY_KEYS : kind < 11 ? SECURITY_KEYS : OTHER_KEYS);
    }

    /** Up to 6 random characters, none a line break. */
    private static String valueText(Random random) {
        StringBuilder sb = new StringBuilder();
        for (int n = Fuzz.between(random, 0, 6); sb.length() < n; ) {
            char c = Fuzz.anyChar(random);
            if (LINE_BREAKS.indexOf(c) < 0) {
                sb.append(c);
            }
        }
        return sb.toString();
    }

    /** Whether the parser reads the generated line as {@code key = value} with exactly this key. */
    private static boolean isKeyLine(String key, String eq, String value) {
        return !key.startsWith("[") && !key.isBlank() && !key.contains("=") && !key.contains("#")
                && !eq.contains(":") && !value.startsWith("#") && !value.startsWith(";");
    }

    private static Edit edit(Random random) {
        return new Edit(Fuzz.pick(random, EditKind.class), Fuzz.between(random, 0, 2000), Fuzz.between(random, 1, 12),
                Fuzz.pick(random, EDIT_TOKENS));
    }

    private static List<String> editTokens() {
        List<String> tokens = new ArrayList<>(List.of("=", "[", "]", "#", ";", " ", "\n", "\r\n", "\\\n", "\"", "'",
                "\0", "\ud83d", "\u00e9", "[policy x]\n", "[security]\n", "name = B\n", "9", "-", "MiB", "s", ","));
        tokens.addAll(BROKER_KEYS);
        tokens.addAll(POLICY_KEYS);
        return List.copyOf(tokens);
    }

    enum EditKind { INSERT, DELETE, REPLACE, DUPLICATE }

    /** One edit of the file at {@code position} (taken modulo its length). */
    record Edit(EditKind kind, int position, int length, String token) {

        String apply(String in) {
            int at = position % (in.length() + 1);
            int end = Math.min(in.length(), at + length);
            return switch (kind) {
                case INSERT -> in.substring(0, at) + token + in.substring(at);
                case DELETE -> in.substring(0, at) + in.substring(end);
                case REPLACE -> in.substring(0, at) + token + in.substring(end);
                case DUPLICATE -> in.substring(0, end) + in.substring(at);
            };
        }
    }

    private static Path emptyDirectory() {
        try {
            Path dir = Files.createTempDirectory("fedbridge-config-fuzz");
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
