package io.fedbridge.ha;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.BrokerConfigFile;
import io.fedbridge.broker.BrokerException;
import io.fedbridge.broker.ConfigFileException;
import io.fedbridge.broker.HaConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import javax.management.ObjectName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code ha.*} keys, in the config file and the builder, and the errors that name what is wrong. */
class HaConfigurationTest {

    @TempDir
    Path dir;

    @Test
    void theConfigFileKeysBuildTheGroup() throws Exception {
        Path file = dir.resolve("a1.conf");
        Files.writeString(file, String.join("\n",
                "name = a1",
                "listen = tcp://127.0.0.1:61613",
                "data = data/a1",
                "ha.group = east",
                "ha.brokers = tcp://a1:61613, tcp://a2:61613",
                "ha.brokers = tcp://a3:61613",
                "ha.replicate = configuration",
                "ha.zookeeper = zk1:2181,zk2:2181",
                "ha.backupTimeout = 2s",
                "ha.zookeeperSessionTimeout = 6s", ""));
        HaConfig ha = BrokerConfigFile.load(file).build().ha();
        assertThat(ha).isEqualTo(new HaConfig("east", List.of("tcp://a1:61613", "tcp://a2:61613", "tcp://a3:61613"),
                HaConfig.Replicate.CONFIGURATION, "zk1:2181,zk2:2181", Duration.ofSeconds(2), Duration.ofSeconds(6)));
        assertThat(BrokerConfig.builder("a1").ha(h -> h.group("east").brokers("tcp://a1:61613,tcp://a2:61613")).build().ha())
                .isEqualTo(new HaConfig("east", List.of("tcp://a1:61613", "tcp://a2:61613"), HaConfig.Replicate.ALL, null, null, null));
    }

    @Test
    void badKeysAreErrorsThatNameThem() throws Exception {
        Path noMembers = dir.resolve("no-members.conf");
        Files.writeString(noMembers, "name = a1\nha.group = east\n");
        assertThatThrownBy(() -> BrokerConfigFile.load(noMembers)).isInstanceOf(ConfigFileException.class)
                .hasMessageContaining("no-members.conf:2: ha.brokers must list the group's members' URIs");
        Path noGroup = dir.resolve("no-group.conf");
        Files.writeString(noGroup, "name = a1\nha.brokers = tcp://a1:61613\n");
        assertThatThrownBy(() -> BrokerConfigFile.load(noGroup)).hasMessageContaining("ha.group must be set");
        Path badReplicate = dir.resolve("bad-replicate.conf");
        Files.writeString(badReplicate, "name = a1\nha.group = east\nha.brokers = tcp://a1:61613\nha.replicate = some\n");
        assertThatThrownBy(() -> BrokerConfigFile.load(badReplicate)).hasMessageContaining("bad-replicate.conf:4:")
                .hasMessageContaining("ha.replicate must be one of all, configuration, none, but was 'some'");
        assertThatThrownBy(() -> HaConfig.builder("east").brokers("failover:(tcp://a:1)").build())
                .hasMessageContaining("ha.brokers must list plain member URIs");
        assertThatThrownBy(() -> HaConfig.builder("a b").brokers("tcp://a:1").build()).hasMessageContaining("ha.group must be");
    }

    @Test
    void aMemberIsStartedAsAMemberWithADataDirectoryOfItsOwnGroup() {
        BrokerConfig member = BrokerConfig.builder("m").listen("tcp://127.0.0.1:0").dataDirectory(dir.resolve("m"))
                .ha(h -> h.group("g1").brokers("tcp://127.0.0.1:1")).build();
        assertThatThrownBy(() -> Broker.start(member)).isInstanceOf(BrokerException.class)
                .hasMessageContaining("is a member of HA group 'g1' (ha.group): start it with io.fedbridge.ha.HaMember.start");
        assertThatThrownBy(() -> HaMember.start(member.toBuilder().dataDirectory(null).build()))
                .hasMessageContaining("needs a data directory");
        assertThatThrownBy(() -> HaMember.start(BrokerConfig.builder("m").build())).hasMessageContaining("not a member of an HA group");

        try (HaMember m = HaMember.start(member)) {
            assertThat(m.role()).isEqualTo(HaRole.BACKUP);
        }
        BrokerConfig otherGroup = member.toBuilder().ha(h -> h.group("g2")).build();
        assertThatThrownBy(() -> HaMember.start(otherGroup)).isInstanceOf(BrokerException.class)
                .hasMessageContaining("configured into HA group 'g2' but its data directory").hasMessageContaining("belongs to group 'g1'");
    }

    @Test
    void jmxShowsTheMemberAndPromotesIt() throws Exception {
        BrokerConfig member = BrokerConfig.builder("jmx-1").listen("tcp://127.0.0.1:0").dataDirectory(dir.resolve("j"))
                .ha(h -> h.group("gj").brokers("tcp://127.0.0.1:1")).build();
        ObjectName name = new ObjectName("io.fedbridge:type=HaMember,name=\"jmx-1\"");
        var server = ManagementFactory.getPlatformMBeanServer();
        try (HaMember m = HaMember.start(member)) {
            assertThat(server.getAttribute(name, "Role")).isEqualTo("backup");
            assertThat(server.getAttribute(name, "Group")).isEqualTo("gj");
            assertThatThrownBy(() -> server.invoke(name, "promote", new Object[] {false}, new String[] {"boolean"}))
                    .hasRootCauseMessage("broker jmx-1 is a backup in state joining, not ready: its copy of the primary's store is "
                            + "incomplete; promoting it may lose messages the primary receipted. Use --force to promote it anyway");
            server.invoke(name, "promote", new Object[] {true}, new String[] {"boolean"});
            assertThat(m.awaitPrimary(Duration.ofSeconds(30))).isTrue();
            assertThat(server.getAttribute(name, "Role")).isEqualTo("primary");
            assertThat(server.getAttribute(name, "Epoch")).isEqualTo(1L);
        }
        assertThat(server.isRegistered(name)).isFalse();
    }
}
