package io.fedbridge.benchmarks;

import java.nio.file.Path;
import java.util.List;
import org.apache.activemq.artemis.core.config.ClusterConnectionConfiguration;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.ha.ReplicaPolicyConfiguration;
import org.apache.activemq.artemis.core.config.ha.ReplicatedPolicyConfiguration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.io.aio.AIOSequentialFileFactory;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ActiveMQServers;
import org.apache.activemq.artemis.core.server.JournalType;

/**
 * Child JVM of the {@code ha} benchmark: one server of an embedded Apache ActiveMQ Artemis primary/backup pair with
 * the classic replication HA policy ({@link ReplicatedPolicyConfiguration} on the primary,
 * {@link ReplicaPolicyConfiguration} on the backup). Each server has a core acceptor on loopback, which replication
 * and the cluster connection use (a cluster connection with a static connector to the peer: replication needs one),
 * and a STOMP acceptor {@code tcp://127.0.0.1:PORT?protocols=STOMP;anycastPrefix=/queue/;multicastPrefix=/topic/;tcpNoDelay=true;connectionTtl=3600000}
 * for the clients, which a backup opens only when it becomes active (the load client sends no heart-beats, and its
 * consumer connection sends nothing at all with {@code ack:auto}: with the default TTL, 60 s, Artemis closed it). Persistent, journal with Artemis' defaults
 * (type ASYNCIO where libaio is installed, NIO otherwise; datasync on: a write is synced before it is acknowledged),
 * security and JMX off, audit logging off (as in Artemis' distribution). Everything else is Artemis' default.
 *
 * <p>Arguments: {@code --name NAME --role primary|backup --stomp-port P --core-port P --peer-core-port P --data DIR}.
 * Prints {@code READY tcp://127.0.0.1:STOMP_PORT journal=TYPE} once the server started (a backup: once it started
 * replicating, not yet synchronised). Commands: {@code status} answers {@code STATUS active=BOOL replicaSync=BOOL}
 * (on the primary, replicaSync is true once a backup is synchronised with it). Runs until its stdin closes.
 */
public final class ArtemisHaMain {

    private ArtemisHaMain() {
    }

    public static void main(String[] args) throws Exception {
        // Artemis' audit loggers log every message at INFO; its distribution configures them off, so here too.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.activemq.audit", "warn");
        String name = "artemis";
        boolean primary = true;
        int stompPort = 0;
        int corePort = 0;
        int peerCorePort = 0;
        Path data = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--role" -> primary = switch (args[++i]) {
                    case "primary" -> true;
                    case "backup" -> false;
                    default -> throw new IllegalArgumentException("--role must be primary or backup, but was " + args[i]);
                };
                case "--stomp-port" -> stompPort = Integer.parseInt(args[++i]);
                case "--core-port" -> corePort = Integer.parseInt(args[++i]);
                case "--peer-core-port" -> peerCorePort = Integer.parseInt(args[++i]);
                case "--data" -> data = Path.of(args[++i]);
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --role, --stomp-port, --core-port,"
                            + " --peer-core-port, --data");
                    System.exit(2);
                }
            }
        }
        if (data == null || stompPort <= 0 || corePort <= 0 || peerCorePort <= 0) {
            System.out.println("ERROR --data, --stomp-port, --core-port and --peer-core-port are required");
            System.exit(2);
        }
        String self = "tcp://127.0.0.1:" + corePort;
        Configuration c = new ConfigurationImpl()
                .setName(name)
                .setPersistenceEnabled(true)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .setJournalDirectory(data.resolve("journal").toString())
                .setBindingsDirectory(data.resolve("bindings").toString())
                .setPagingDirectory(data.resolve("paging").toString())
                .setLargeMessagesDirectory(data.resolve("large").toString())
                .setNodeManagerLockDirectory(data.resolve("lock").toString())
                .setClusterUser("bench")
                .setClusterPassword("bench")
                .addAcceptorConfiguration("core", self + "?protocols=CORE;tcpNoDelay=true")
                .addAcceptorConfiguration("stomp", "tcp://127.0.0.1:" + stompPort
                        + "?protocols=STOMP;anycastPrefix=/queue/;multicastPrefix=/topic/;tcpNoDelay=true;connectionTtl=3600000")
                .addConnectorConfiguration("self", self)
                .addConnectorConfiguration("peer", "tcp://127.0.0.1:" + peerCorePort)
                .addClusterConfiguration(new ClusterConnectionConfiguration().setName("bench-cluster").setConnectorName("self")
                        .setStaticConnectors(List.of("peer")).setRetryInterval(100))
                .setHAPolicyConfiguration(primary ? new ReplicatedPolicyConfiguration() : new ReplicaPolicyConfiguration());
        ActiveMQServer server = ActiveMQServers.newActiveMQServer(c, true); // true: persistence on
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "artemis-bench-stop"));
        String journal = c.getJournalType() == JournalType.ASYNCIO && !AIOSequentialFileFactory.isSupported() ? "NIO" // Artemis falls back
                : c.getJournalType().name();
        ChildProtocol.ready("tcp://127.0.0.1:" + stompPort + " journal=" + journal);
        ChildProtocol.serve(command -> switch (command) {
            case "status" -> "STATUS active=" + server.isActive() + " replicaSync=" + server.isReplicaSync();
            default -> "ERROR unknown command '" + command + "'";
        });
        stop(server);
        System.exit(0);
    }

    private static void stop(ActiveMQServer server) {
        try {
            server.stop();
        } catch (Exception e) {
            System.err.println("Artemis did not stop cleanly: " + e);
        }
    }
}
