package io.fedbridge.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.store.Durability;
import io.fedbridge.core.FrameLimits;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BrokerConfigFileTest {

    private static final Path BASE = Path.of("/etc/fedbridge");

    @TempDir
    Path tmp;

    // ---------------------------------------------------------------------------------------------
    // Keys

    @Test
    void shouldReadEveryBrokerKey() {
        BrokerConfig c = build("""
                name = A
                listen = tcp://127.0.0.1:61613
                data = /var/lib/fedbridge/A
                durability = async
                memoryLimit = 256MiB
                heartBeat = 5s
                defaultPrefetch = 200
                maxFrameSize = 1MiB
                maxHeaders = 50
                maxHeaderLength = 4KiB
                network = static:(tcp://127.0.0.1:61614)?networkTTL=2
                metrics = http://127.0.0.1:9404?linkGrace=10s
                """);

        assertThat(c.name()).isEqualTo("A");
        assertThat(c.listeners()).containsExactly("tcp://127.0.0.1:61613");
        assertThat(c.dataDirectory()).isEqualTo(Path.of("/var/lib/fedbridge/A"));
        assertThat(c.durability()).isEqualTo(Durability.ASYNC);
        assertThat(c.memoryLimit()).isEqualTo(256L * 1024 * 1024);
        assertThat(c.heartBeat()).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.defaultPrefetch()).isEqualTo(200);
        assertThat(c.limits()).isEqualTo(new FrameLimits(1024 * 1024, 50, 4096));
        assertThat(c.networkConnectors()).containsExactly("static:(tcp://127.0.0.1:61614)?networkTTL=2");
        assertThat(c.metrics()).isEqualTo("http://127.0.0.1:9404?linkGrace=10s");
        assertThat(c.policies()).isEmpty();
    }

    @Test
    void shouldReadEveryPolicyKey() {
        BrokerConfig c = build("""
                name = A
                [policy /queue/orders.>]
                maxNumMsgs = 100000
                maxTotalMsgBytes = 1GiB
                maxBytesPerMsg = 1MiB
                maxNumProducers = 10
                maxNumActiveConsumers = 5
                consumerFlowLimit = 500
                limitBehavior = remove_oldest
                useDMQ = false
                maxRedeliveries = 3
                localDeliveryPreferred = true
                isLocalOnly = TRUE
                """);

        assertThat(c.policies()).containsExactly(new DestinationPolicy("/queue/orders.>", 100_000, 1L << 30, 1L << 20,
                10, 5, 500, LimitBehavior.REMOVE_OLDEST, false, 3, true, true));
    }

    @Test
    void shouldLeaveDefaultsForAbsentKeys() {
        BrokerConfig c = build("""
                name = A
                [policy >]
                maxNumMsgs = 10
                """);

        BrokerConfig defaults = BrokerConfig.ofDefaults("A");
        assertThat(c).isEqualTo(defaults.toBuilder().policy(DestinationPolicy.builder(">").maxNumMsgs(10).build()).build());
        assertThat(c.limits()).isEqualTo(FrameLimits.ofDefaults());
    }

    @Test
    void shouldKeepPoliciesInFileOrder() {
        BrokerConfig c = build("""
                name = A
                [policy /queue/orders.>]
                [policy /topic/*.prices]
                limitBehavior = flow-control
                [policy >]
                """);

        assertThat(c.policies()).extracting(DestinationPolicy::pattern)
                .containsExactly("/queue/orders.>", "/topic/*.prices", ">");
        assertThat(c.policies().get(0)).isEqualTo(DestinationPolicy.builder("/queue/orders.>").build());
        assertThat(c.policies().get(1).limitBehavior()).isEqualTo(LimitBehavior.FLOW_CONTROL);
    }

    @Test
    void shouldCombineFrameLimitKeysWhateverTheirOrder() {
        BrokerConfig c = build("""
                name = A
                maxHeaderLength = 1KiB
                maxFrameSize = 2048
                """);

        assertThat(c.limits()).isEqualTo(new FrameLimits(2048, FrameLimits.DEFAULT_MAX_HEADERS, 1024));
    }

    @Test
    void shouldAddUpRepeatedAndCommaSeparatedListeners() {
        BrokerConfig c = build("""
                name = A
                listen = tcp://127.0.0.1:61613, tcp://127.0.0.1:61623
                listen=tcp://127.0.0.1:61633
                listen = ws://127.0.0.1:61643/stomp?maximumConnections=10
                """);

        assertThat(c.listeners()).containsExactly("tcp://127.0.0.1:61613", "tcp://127.0.0.1:61623", "tcp://127.0.0.1:61633",
                "ws://127.0.0.1:61643/stomp?maximumConnections=10");
    }

    @Test
    void shouldKeepRepeatedNetworkConnectorsVerbatimWithTheirOwnCommas() {
        BrokerConfig c = build("""
                name = A
                network = static:(tcp://127.0.0.1:61614,tcp://127.0.0.1:61615)?networkTTL=2
                network = multicast://default
                """);

        assertThat(c.networkConnectors()).containsExactly(
                "static:(tcp://127.0.0.1:61614,tcp://127.0.0.1:61615)?networkTTL=2", "multicast://default");
    }

    @Test
    void shouldLeaveTheNameUnsetWhenTheFileHasNone() {
        BrokerConfig.Builder b = BrokerConfigFile.parse("listen = tcp://127.0.0.1:0\n", "broker.conf", BASE);

        assertThatThrownBy(b::build).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThat(b.name("Z").build().name()).isEqualTo("Z");
    }

    @Test
    void shouldAcceptAnEmptyFile() {
        assertThat(BrokerConfigFile.parse("", "empty.conf", BASE).name("A").build()).isEqualTo(BrokerConfig.ofDefaults("A"));
    }

    @Test
    void shouldReadTheInDoubtHoldAndRejectANegativeOne() {
        assertThat(build("name = A\n").inDoubtHold()).isEqualTo(Duration.ofSeconds(10));
        assertThat(build("name = A\ninDoubtHold = 2500ms\n").inDoubtHold()).isEqualTo(Duration.ofMillis(2500));
        assertThat(build("name = A\ninDoubtHold = 0\n").inDoubtHold()).isZero();
        assertThatThrownBy(() -> build("name = A\ninDoubtHold = soon\n")).hasMessageContaining("broker.conf:2")
                .hasMessageContaining("inDoubtHold").hasMessageContaining("soon");
        assertThatThrownBy(() -> BrokerConfig.builder("A").inDoubtHold(Duration.ofSeconds(-1)).build())
                .hasMessageContaining("inDoubtHold must be >= 0, but was PT-1S");
    }

    @Test
    void shouldReadTheResourceLimitsKeepingTheDefaultsOfThoseLeftOut() {
        assertThat(build("name = A\n").resourceLimits()).isEqualTo(ResourceLimits.ofDefaults());
        ResourceLimits l = build("""
                name = A
                connectAttemptTimeout = 5s
                maxSubscriptionsPerConnection = 20000
                maxTransactionsPerConnection = 10
                maxDestinations = 0
                maxDurableSubscriptionsPerClientId = 50
                maxSlowDuration = 1m
                minFreeDisk = 2GiB
                """).resourceLimits();
        assertThat(l).isEqualTo(new ResourceLimits(Duration.ofSeconds(5), 20_000, 10, 0, 50, Duration.ofMinutes(1),
                2L << 30, DiskSpace.ofFileSystem()));
        assertThat(build("name = A\nmaxSlowDuration = 0\n").resourceLimits())
                .isEqualTo(ResourceLimits.ofDefaults().toBuilder().maxSlowDuration(Duration.ZERO).build());
        assertThatThrownBy(() -> build("name = A\n\nmaxDestinations = -5\n"))
                .hasMessage("broker.conf:3: maxDestinations must be >= 0 (0 = no limit), but was -5");
        assertThatThrownBy(() -> build("name = A\nminFreeDisk = lots\n")).hasMessageContaining("broker.conf:2")
                .hasMessageContaining("minFreeDisk must be a size");
        assertThatThrownBy(() -> build("name = A\nconnectAttemptTimeout = -1s\n")).hasMessageContaining("broker.conf:2")
                .hasMessageContaining("connectAttemptTimeout");
    }

    @Test
    void shouldReadTheIoThreadsAndRejectANumberOutOfRange() {
        assertThat(build("name = A\n").ioThreads()).isEqualTo(BrokerConfig.defaultIoThreads())
                .isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(build("name = A\nioThreads = 3\n").ioThreads()).isEqualTo(3);
        assertThat(build("name = A\nioThreads = 0\n").ioThreads()).isEqualTo(BrokerConfig.defaultIoThreads());
        assertThatThrownBy(() -> build("name = A\nioThreads = many\n")).hasMessageContaining("broker.conf:2")
                .hasMessageContaining("ioThreads").hasMessageContaining("many");
        assertThatThrownBy(() -> BrokerConfig.builder("A").ioThreads(-1).build())
                .hasMessage("ioThreads must be 1-1024 (0 = the default, " + BrokerConfig.defaultIoThreads() + " here), but was -1");
        assertThatThrownBy(() -> BrokerConfig.builder("A").ioThreads(1025).build()).hasMessageContaining("but was 1025");
        assertThat(BrokerConfig.builder("A").ioThreads(2).build().toBuilder().build().ioThreads()).isEqualTo(2);
    }

    @Test
    void shouldTakeTheDefaultIoThreadsFromTheSystemPropertyWhenSet() {
        String before = System.getProperty(BrokerConfig.IO_THREADS_PROPERTY);
        try {
            System.setProperty(BrokerConfig.IO_THREADS_PROPERTY, "5");
            assertThat(build("name = A\n").ioThreads()).isEqualTo(5);
            assertThat(build("name = A\nioThreads = 2\n").ioThreads()).as("the configuration wins").isEqualTo(2);
            System.setProperty(BrokerConfig.IO_THREADS_PROPERTY, "lots");
            assertThatThrownBy(() -> BrokerConfig.ofDefaults("A"))
                    .hasMessage("system property fedbridge.ioThreads must be 1-1024, but was 'lots'");
        } finally {
            if (before == null) {
                System.clearProperty(BrokerConfig.IO_THREADS_PROPERTY);
            } else {
                System.setProperty(BrokerConfig.IO_THREADS_PROPERTY, before);
            }
        }
    }

    @Test
    void shouldListTheKeysInDocumentationOrder() {
        assertThat(BrokerConfigFile.brokerKeys()).containsExactly("name", "listen", "data", "durability", "memoryLimit",
                "heartBeat", "inDoubtHold", "ioThreads", "defaultPrefetch", "maxFrameSize", "maxHeaders", "maxHeaderLength",
                "connectAttemptTimeout", "maxSubscriptionsPerConnection", "maxTransactionsPerConnection", "maxDestinations",
                "maxDurableSubscriptionsPerClientId", "maxSlowDuration", "minFreeDisk", "network", "metrics", "ha.group",
                "ha.brokers", "ha.replicate", "ha.zookeeper", "ha.backupTimeout", "ha.zookeeperSessionTimeout", "autoDeleteIdle",
                "tempDestinationReconnectGrace", "masterBroker");
        assertThat(BrokerConfigFile.policyKeys()).containsExactly("maxNumMsgs", "maxTotalMsgBytes", "maxBytesPerMsg",
                "maxNumProducers", "maxNumActiveConsumers", "maxNumBackupConsumers", "consumerFlowLimit", "limitBehavior", "useDMQ",
                "maxRedeliveries", "localDeliveryPreferred", "isLocalOnly", "replicateFrom");
    }

    @Test
    void shouldReadReplicateFromForOneQueueOnly() {
        BrokerConfig c = parse("name = A\n[policy /queue/orders]\nreplicateFrom = tcp://b:61613\n").build();
        assertThat(c.policies()).singleElement().extracting(DestinationPolicy::replicateFrom).isEqualTo("tcp://b:61613");

        assertThatThrownBy(() -> parse("name = A\n[policy /queue/orders.>]\nreplicateFrom = tcp://b:61613\n"))
                .hasMessageContaining("replicateFrom needs a policy for one queue, such as [policy /queue/orders], but the "
                        + "pattern is '/queue/orders.>'");
        assertThatThrownBy(() -> parse("name = A\n[policy /queue/orders]\nreplicateFrom = failover:(tcp://b:1,tcp://c:2)\n"))
                .hasMessageContaining("replicateFrom must be one broker's URI");
    }

    @Test
    void shouldHaveAPolicyKeyForEveryDestinationPolicyComponent() {
        List<String> components = Arrays.stream(DestinationPolicy.class.getRecordComponents())
                .map(RecordComponent::getName).filter(n -> !n.equals("pattern")).toList();

        assertThat(BrokerConfigFile.policyKeys()).containsExactlyElementsOf(components);
    }

    @Test
    void shouldHaveABrokerKeyForEveryBrokerConfigComponent() {
        // A new BrokerConfig component fails here until the file format has a key (or section) for it.
        Map<String, List<String>> keysByComponent = new java.util.HashMap<>(Map.of(
                "name", List.of("name"),
                "listeners", List.of("listen"),
                "dataDirectory", List.of("data"),
                "limits", List.of("maxFrameSize", "maxHeaders", "maxHeaderLength"),
                "heartBeat", List.of("heartBeat"),
                "memoryLimit", List.of("memoryLimit"),
                "defaultPrefetch", List.of("defaultPrefetch"),
                "durability", List.of("durability"),
                "policies", List.of(),
                "networkConnectors", List.of("network")));
        keysByComponent.put("security", List.of()); // the [security] section
        keysByComponent.put("inDoubtHold", List.of("inDoubtHold"));
        keysByComponent.put("ioThreads", List.of("ioThreads"));
        keysByComponent.put("resourceLimits", List.of("connectAttemptTimeout", "maxSubscriptionsPerConnection",
                "maxTransactionsPerConnection", "maxDestinations", "maxDurableSubscriptionsPerClientId", "maxSlowDuration",
                "minFreeDisk")); // every component but diskSpace, which only Java code can supply
        keysByComponent.put("metrics", List.of("metrics"));
        keysByComponent.put("cluster", List.of("autoDeleteIdle", "tempDestinationReconnectGrace", "masterBroker")); // and the [destination NAME] sections
        keysByComponent.put("ha", List.of("ha.group", "ha.brokers", "ha.replicate", "ha.zookeeper", "ha.backupTimeout",
                "ha.zookeeperSessionTimeout"));

        assertThat(Arrays.stream(BrokerConfig.class.getRecordComponents()).map(RecordComponent::getName))
                .containsExactlyInAnyOrderElementsOf(keysByComponent.keySet());
        assertThat(BrokerConfigFile.brokerKeys()).containsExactlyInAnyOrderElementsOf(
                keysByComponent.values().stream().flatMap(List::stream).collect(Collectors.toList()));
    }

    // ---------------------------------------------------------------------------------------------
    // Syntax

    @Test
    void shouldIgnoreCommentsAndBlankLines() {
        BrokerConfig c = build("""
                # a comment
                ; another

                   name = A   # trailing comment
                data = dir#1;x   ; '#' and ';' without whitespace before them are part of the value
                [policy >]    # comment after a section
                maxNumMsgs = 5 ;comment
                """);

        assertThat(c.name()).isEqualTo("A");
        assertThat(c.dataDirectory()).isEqualTo(BASE.resolve("dir#1;x"));
        assertThat(c.policies()).singleElement().extracting(DestinationPolicy::maxNumMsgs).isEqualTo(5L);
    }

    @Test
    void shouldKeepEqualsSignsInTheValue() {
        BrokerConfig c = build("name = A\nnetwork = static:(tcp://h:1)?a=b&c=d\n");

        assertThat(c.networkConnectors()).containsExactly("static:(tcp://h:1)?a=b&c=d");
    }

    @Test
    void shouldAcceptCrLfLineEndingsAndAByteOrderMark() {
        String text = "\uFEFFname = A\r\nmaxHeaders = 7\r\n\r\nbogus\r\n";

        assertThatThrownBy(() -> BrokerConfigFile.parse(text, "win.conf", BASE))
                .hasMessageStartingWith("win.conf:4: ");
        assertThat(BrokerConfigFile.parse(text.replace("bogus", "# ok"), "win.conf", BASE).build().limits().maxHeaders())
                .isEqualTo(7);
    }

    // ---------------------------------------------------------------------------------------------
    // Values

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "-1        | -1",
        "65536     | 65536",
        "10B       | 10",
        "1KB       | 1000",
        "1KiB      | 1024",
        "64 kib    | 65536",
        "2MB       | 2000000",
        "2MiB      | 2097152",
        "1GB       | 1000000000",
        "1GiB      | 1073741824",
        "1.5GiB    | 1610612736",
        "0.5KiB    | 512",
        "8gib      | 8589934592",
        // insignificant zeros do not count towards the digits a size may have
        "00000000000000000000000000000001.50000000000000000000000000000000000000000KiB | 1536",
        "0.000000000931322574615478515625GiB | 1",
        "0000000000000000000000000000000000000000065536 | 65536"})
    void shouldReadSizes(String size, long bytes) {
        BrokerConfig c = build("name = A\n[policy >]\nmaxBytesPerMsg = " + size + "\n");

        assertThat(c.policies().get(0).maxBytesPerMsg()).isEqualTo(bytes);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10XB      | a size",
        "1 MiBs    | a size",
        "MiB       | a size",
        "1.5B      | a whole number of bytes",
        "-1MiB     | a size",
        "1,5MiB    | a size",
        "0.0000000000000000000000000000001GiB | a whole number of bytes",
        "99999999999999999999KiB | at most 9223372036854775807 bytes",
        "99999999999999999999 | at most 9223372036854775807 bytes"})
    void shouldRejectBadSizes(String size, String rule) {
        assertThatThrownBy(() -> parse("name = A\n[policy >]\nmaxTotalMsgBytes = " + size + "\n"))
                .isInstanceOf(ConfigFileException.class)
                .hasMessage("broker.conf:3: maxTotalMsgBytes must be " + rule
                        + (rule.equals("a size") ? ": a whole number of bytes, or a number with unit B, KB, KiB, MB, "
                        + "MiB, GB or GiB (KB = 1000 bytes, KiB = 1024 bytes), e.g. '65536', '64KiB' or '1.5GB'" : "")
                        + ", but was '" + size + "'");
    }

    @Test
    void shouldRejectASizeBeyondAnIntForFrameLimits() {
        assertThatThrownBy(() -> parse("maxFrameSize = 2GiB\n"))
                .hasMessage("broker.conf:1: maxFrameSize must be at most 2147483647 bytes, but was '2GiB'");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "10000     | PT10S",
        "0         | PT0S",
        "250ms     | PT0.25S",
        "5s        | PT5S",
        "2m        | PT2M",
        "1m30s     | PT1M30S",
        "1.5s      | PT1.5S",
        "PT5S      | PT5S",
        "P1DT2H    | PT26H"})
    void shouldReadDurationsAsUriOptionsDoes(String text, String iso) {
        assertThat(build("name = A\nheartBeat = " + text + "\n").heartBeat()).isEqualTo(Duration.parse(iso));
    }

    @Test
    void shouldRejectABadDuration() {
        assertThatThrownBy(() -> parse("name = A\nheartBeat = 5 sec\n"))
                .isInstanceOf(ConfigFileException.class)
                .hasMessageStartingWith("broker.conf:2: heartBeat must be a duration: a whole number of milliseconds")
                .hasMessageEndingWith(", but was '5 sec'");
    }

    @Test
    void shouldResolveARelativeDataPathAgainstTheBaseDirectory() {
        assertThat(build("name = A\ndata = data/A\n").dataDirectory()).isEqualTo(Path.of("/etc/fedbridge/data/A"));
        assertThat(build("name = A\ndata = ../lib/./A\n").dataDirectory()).isEqualTo(Path.of("/etc/lib/A"));
        assertThat(build("name = A\ndata = /srv/A\n").dataDirectory()).isEqualTo(Path.of("/srv/A"));
        assertThat(BrokerConfigFile.parse("name = A\ndata = data/A\n", "x", null).build().dataDirectory())
                .isEqualTo(Path.of("data/A"));
    }

    @Test
    void shouldLoadAFileAndResolveDataAgainstItsDirectory() throws IOException {
        Path dir = Files.createDirectories(tmp.resolve("conf"));
        Path file = Files.writeString(dir.resolve("a.conf"), "name = A-1\ndata = store\n");

        BrokerConfig c = BrokerConfigFile.load(file).build();

        assertThat(c.name()).isEqualTo("A-1");
        assertThat(c.dataDirectory()).isEqualTo(dir.toAbsolutePath().resolve("store"));
    }

    @Test
    void shouldReadEnumsIgnoringCase() {
        assertThat(build("name = A\ndurability = SYNC\n").durability()).isEqualTo(Durability.SYNC);
        assertThat(build("name = A\ndurability = Async\n").durability()).isEqualTo(Durability.ASYNC);
    }

    // ---------------------------------------------------------------------------------------------
    // Errors

    @Test
    void shouldNameAnUnknownKeyListTheValidOnesAndSuggestTheNearest() {
        assertThatThrownBy(() -> parse("""
                name = A
                # one
                # two
                # three
                # four
                # five
                memoryLimt = 1GiB
                """))
                .isInstanceOf(ConfigFileException.class)
                .hasMessage("broker.conf:7: unknown key 'memoryLimt'; valid keys are: autoDeleteIdle, connectAttemptTimeout, data, "
                        + "defaultPrefetch, durability, ha.backupTimeout, ha.brokers, ha.group, ha.replicate, ha.zookeeper, "
                        + "ha.zookeeperSessionTimeout, heartBeat, inDoubtHold, ioThreads, listen, masterBroker, maxDestinations, "
                        + "maxDurableSubscriptionsPerClientId, maxFrameSize, maxHeaderLength, maxHeaders, maxSlowDuration, "
                        + "maxSubscriptionsPerConnection, maxTransactionsPerConnection, memoryLimit, metrics, minFreeDisk, name, network, "
                        + "tempDestinationReconnectGrace; did you mean 'memoryLimit'?")
                .satisfies(e -> {
                    ConfigFileException cfe = (ConfigFileException) e;
                    assertThat(cfe.source()).isEqualTo("broker.conf");
                    assertThat(cfe.line()).isEqualTo(7);
                });
    }

    @Test
    void shouldSuggestAKeyThatDiffersOnlyInCase() {
        assertThatThrownBy(() -> parse("heartbeat = 5s\n")).hasMessageEndingWith("did you mean 'heartBeat'?");
    }

    @Test
    void shouldNameAnUnknownKeyInAPolicySection() {
        assertThatThrownBy(() -> parse("name = A\n[policy /queue/a]\nmaxNumMsg = 5\n"))
                .hasMessageStartingWith("broker.conf:3: unknown key 'maxNumMsg' in [policy /queue/a]; valid keys are: "
                        + "consumerFlowLimit, isLocalOnly, limitBehavior,")
                .hasMessageEndingWith("; did you mean 'maxNumMsgs'?");
    }

    @Test
    void shouldSuggestAPolicyKeyMisspeltBeforeTheFirstSection() {
        assertThatThrownBy(() -> parse("maxNumMsg = 5\n"))
                .hasMessageStartingWith("broker.conf:1: unknown key 'maxNumMsg'; valid keys are: autoDeleteIdle, connectAttemptTimeout, data,")
                .hasMessageEndingWith("; did you mean 'maxNumMsgs' (a policy key)?");
    }

    @Test
    void shouldSayWhereAMisplacedKeyBelongs() {
        assertThatThrownBy(() -> parse("maxNumMsgs = 5\n"))
                .hasMessage("broker.conf:1: key 'maxNumMsgs' belongs in a [policy PATTERN] section, e.g. [policy >] "
                        + "for every destination; it cannot come before the first section");
        assertThatThrownBy(() -> parse("[policy >]\nmemoryLimit = 1GiB\n"))
                .hasMessage("broker.conf:2: key 'memoryLimit' is a broker key and must come before the first section, "
                        + "but this line is in [policy >]");
    }

    @Test
    void shouldReportTheRecordsOwnValidationMessage() {
        String text = "name = A\n" + "\n".repeat(9) + "[policy /queue/orders.>]\nmaxNumMsgs = 0\n";

        assertThatThrownBy(() -> parse(text))
                .isInstanceOf(ConfigFileException.class)
                .hasMessage("broker.conf:12: maxNumMsgs must be -1 (unlimited) or >= 1, but was 0")
                .hasCauseInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldReportBrokerConfigValidationWithTheLine() {
        assertThatThrownBy(() -> parse("name = A\nmemoryLimit = 1KiB\n"))
                .hasMessage("broker.conf:2: memoryLimit must be at least 65536 bytes, but was 1024");
        assertThatThrownBy(() -> parse("name = not valid!\n"))
                .hasMessageStartingWith("broker.conf:1: name must be 1-64 letters")
                .hasMessageContaining("'not valid!'");
        assertThatThrownBy(() -> parse("heartBeat = -1s\n"))
                .hasMessage("broker.conf:1: heartBeat must be >= 0, but was PT-1S");
        assertThatThrownBy(() -> parse("defaultPrefetch = -5\n"))
                .hasMessage("broker.conf:1: defaultPrefetch must be > 0, but was -5");
    }

    @Test
    void shouldReportFrameLimitValidationWithTheLine() {
        assertThatThrownBy(() -> parse("name = A\nmaxFrameSize = 100\n"))
                .hasMessage("broker.conf:2: maxFrameSize must be at least 256 bytes, but was 100");
        assertThatThrownBy(() -> parse("maxHeaders = 0\n"))
                .hasMessage("broker.conf:1: maxHeaders must be at least 1, but was 0");
    }

    @Test
    void shouldNameTheKeyOfAnInvalidListener() {
        assertThatThrownBy(() -> parse("name = A\nlisten = tcp://127.0.0.1:61613, udp://127.0.0.1:1\n"))
                .hasMessageStartingWith("broker.conf:2: listen: ")
                .hasMessageContaining("udp://127.0.0.1:1");
        assertThatThrownBy(() -> parse("listen = tcp://a:1,,tcp://b:2\n"))
                .hasMessage("broker.conf:1: listen must be URIs separated by ',' without empty entries, "
                        + "but was 'tcp://a:1,,tcp://b:2'");
    }

    @Test
    void shouldRejectACompositeListenerNamingTheKey() {
        // Regression (found by BrokerConfigFileFuzzTest): the composite's host() threw IllegalStateException.
        assertThatThrownBy(() -> parse("name = A\nlisten = tcp:(tcp://127.0.0.1:61613)\n"))
                .isExactlyInstanceOf(ConfigFileException.class)
                .hasMessageStartingWith("broker.conf:2: listen: ")
                .hasMessageContaining("must be plain, e.g. tcp://127.0.0.1:61613, not composite");
    }

    @Test
    void shouldNameTheKeyOfAMalformedNetworkUri() {
        assertThatThrownBy(() -> parse("name = A\n\nnetwork = static:(tcp://a:1\n"))
                .hasMessageStartingWith("broker.conf:3: network: ")
                .hasMessageContaining("static:(tcp://a:1");
    }

    @Test
    void shouldRejectALineThatIsNeitherKeyValueNorSectionNorComment() {
        assertThatThrownBy(() -> parse("name = A\n\nfoo\n"))
                .hasMessage("broker.conf:3: line is not 'key = value', '[policy PATTERN]' or a comment: 'foo'");
        assertThatThrownBy(() -> parse("= 5\n"))
                .hasMessage("broker.conf:1: line is not 'key = value', '[policy PATTERN]' or a comment: '= 5'");
        assertThatThrownBy(() -> parse("[policy /queue/a\n"))
                .hasMessage("broker.conf:1: line is not 'key = value', '[policy PATTERN]' or a comment: '[policy /queue/a'");
    }

    @Test
    void shouldRejectADuplicateSingleValuedKey() {
        assertThatThrownBy(() -> parse("name = A\nmemoryLimit = 1GiB\n\nmemoryLimit = 2GiB\n"))
                .hasMessage("broker.conf:4: duplicate key 'memoryLimit' (first set on line 2); only listen, network and "
                        + "ha.brokers may be repeated");
        assertThatThrownBy(() -> parse("[policy >]\nuseDMQ = true\nuseDMQ = false\n"))
                .hasMessage("broker.conf:3: duplicate key 'useDMQ' in [policy >] (first set on line 2)");
    }

    @Test
    void shouldAllowTheSameKeyInDifferentSections() {
        BrokerConfig c = build("name = A\n[policy /queue/a]\nuseDMQ = false\n[policy /queue/b]\nuseDMQ = false\n");

        assertThat(c.policies()).extracting(DestinationPolicy::useDMQ).containsExactly(false, false);
    }

    @Test
    void shouldRejectAnUnknownSectionType() {
        assertThatThrownBy(() -> parse("name = A\n[queue /queue/a]\n"))
                .hasMessage("broker.conf:2: unknown section type 'queue' in [queue /queue/a]; valid section types are: "
                        + "policy, as in [policy /queue/orders.>], and destination, as in [destination /queue/orders]");
    }

    @Test
    void shouldReadDestinationSectionsAsFederationWideDefinitionsAndAutoDeleteIdle() {
        BrokerConfig c = build("""
                name = A
                autoDeleteIdle = 5m
                tempDestinationReconnectGrace = 10s
                masterBroker = M
                [destination /queue/orders]
                maxNumMsgs = 10
                maxNumActiveConsumers = 1
                maxNumBackupConsumers = 2
                [policy /queue/orders]
                maxNumMsgs = 20
                """);

        assertThat(c.cluster().autoDeleteIdle()).isEqualTo(Duration.ofMinutes(5));
        assertThat(c.cluster().tempDestinationReconnectGrace()).isEqualTo(Duration.ofSeconds(10));
        assertThat(c.cluster().masterBroker()).isEqualTo("M");
        assertThat(c.cluster().destinations()).singleElement().satisfies(p -> {
            assertThat(p.pattern()).isEqualTo("/queue/orders");
            assertThat(p.maxNumMsgs()).isEqualTo(10);
            assertThat(p.maxNumActiveConsumers()).isEqualTo(1);
            assertThat(p.maxNumBackupConsumers()).isEqualTo(2);
        });
        assertThatThrownBy(() -> parse("name = A\n[destination /queue/orders]\nmaxNumBackupConsumers = -2\n"))
                .hasMessageContaining("maxNumBackupConsumers must be -1 (unlimited) or >= 0, but was -2");
        assertThat(c.policies()).singleElement().extracting(DestinationPolicy::maxNumMsgs).isEqualTo(20L);
        assertThatThrownBy(() -> parse("name = A\n[destination /queue/orders.>]\n"))
                .hasMessageContaining("broker.conf:2: invalid section [destination /queue/orders.>]: destinations: destination must be "
                        + "a queue or topic name without wildcards");
        assertThatThrownBy(() -> parse("name = A\n[destination /queue/a]\n[destination /queue/a]\n"))
                .hasMessage("broker.conf:3: duplicate section [destination /queue/a] (first on line 2)");
    }

    @Test
    void shouldRejectAPolicySectionWithoutAPattern() {
        assertThatThrownBy(() -> parse("[policy]\n"))
                .hasMessageStartingWith("broker.conf:1: section [policy] needs a destination pattern");
    }

    @Test
    void shouldRejectAnInvalidPatternOnItsSectionLine() {
        assertThatThrownBy(() -> parse("name = A\n[policy orders]\nmaxNumMsgs = 5\n"))
                .hasMessageStartingWith("broker.conf:2: invalid section [policy orders]: pattern must be a destination")
                .hasMessageEndingWith("but was 'orders'");
    }

    @Test
    void shouldRejectADuplicatePolicySection() {
        assertThatThrownBy(() -> parse("[policy /queue/a]\nmaxNumMsgs = 5\n[policy >]\n[policy /queue/a]\n"))
                .hasMessage("broker.conf:4: duplicate section [policy /queue/a] (first on line 1)");
    }

    @Test
    void shouldRejectBooleansOtherThanTrueOrFalse() {
        assertThatThrownBy(() -> parse("[policy >]\nuseDMQ = yes\n"))
                .hasMessage("broker.conf:2: useDMQ must be 'true' or 'false', but was 'yes'");
    }

    @Test
    void shouldRejectAnUnknownEnumConstant() {
        assertThatThrownBy(() -> parse("[policy >]\nlimitBehavior = DROP\n"))
                .hasMessage("broker.conf:2: limitBehavior must be one of FLOW_CONTROL, REJECT_NEWEST, REMOVE_OLDEST "
                        + "(case-insensitive), but was 'DROP'");
        assertThatThrownBy(() -> parse("durability = fsync\n"))
                .hasMessage("broker.conf:1: durability must be one of SYNC, ASYNC (case-insensitive), but was 'fsync'");
    }

    @Test
    void shouldRejectNonIntegers() {
        assertThatThrownBy(() -> parse("[policy >]\nmaxNumProducers = 10k\n"))
                .hasMessage("broker.conf:2: maxNumProducers must be an integer, but was '10k'");
        assertThatThrownBy(() -> parse("defaultPrefetch = 3000000000\n"))
                .hasMessage("broker.conf:1: defaultPrefetch must be an integer between -2147483648 and 2147483647, "
                        + "but was '3000000000'");
    }

    @Test
    void shouldRejectAnEmptyValue() {
        assertThatThrownBy(() -> parse("name = A\ndata =   # nothing\n"))
                .hasMessage("broker.conf:2: empty value for key 'data'");
    }

    @Test
    void shouldNameTheMissingFile() {
        Path missing = tmp.resolve("nope.conf");

        assertThatThrownBy(() -> BrokerConfigFile.load(missing))
                .isInstanceOf(ConfigFileException.class)
                .hasMessage(missing + ": config file not found")
                .satisfies(e -> assertThat(((ConfigFileException) e).line()).isZero());
    }

    @Test
    void shouldNameTheFileAsGivenWithTheLine() throws IOException {
        Path file = Files.writeString(tmp.resolve("b.conf"), "name = B\nbogus = 1\n");

        assertThatThrownBy(() -> BrokerConfigFile.load(file)).hasMessageStartingWith(file + ":2: unknown key 'bogus'");
    }

    @Test
    void shouldRejectAFileThatIsNotUtf8() throws IOException {
        Path file = Files.write(tmp.resolve("latin1.conf"), "name = \u00e9\n".getBytes(StandardCharsets.ISO_8859_1));

        assertThatThrownBy(() -> BrokerConfigFile.load(file)).hasMessage(file + ": config file is not UTF-8 text");
    }

    // ---------------------------------------------------------------------------------------------

    private static BrokerConfig.Builder parse(String text) {
        return BrokerConfigFile.parse(text, "broker.conf", BASE);
    }

    private static BrokerConfig build(String text) {
        return parse(text).build();
    }
}
