package io.fedbridge.benchmarks;

import java.nio.file.Path;
import java.util.List;
import org.apache.activemq.artemis.api.core.QueueConfiguration;
import org.apache.activemq.artemis.api.core.RoutingType;
import org.apache.activemq.artemis.core.config.BridgeConfiguration;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.io.aio.AIOSequentialFileFactory;
import org.apache.activemq.artemis.core.remoting.impl.netty.NettyAcceptor;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ActiveMQServers;
import org.apache.activemq.artemis.core.server.JournalType;

/**
 * Child JVM of the {@code foreign} benchmark: one embedded Apache ActiveMQ Artemis server, persistent (journal with
 * Artemis' defaults: ASYNCIO where libaio is installed, NIO otherwise; datasync on), security, JMX and audit logging off,
 * with a core acceptor and a STOMP acceptor
 * {@value #STOMP_OPTIONS} on {@code 127.0.0.1}, any free ports, and the durable anycast queue {@code bench} (STOMP's
 * {@code /queue/bench}) defined up front. The load client sends no heart-beats and an {@code ack:auto} consumer writes
 * nothing, hence the long connection TTL (with the default, 60 s, Artemis closed it).
 *
 * <p>With {@code --bridge-to tcp://127.0.0.1:CORE_PORT} the server also runs Artemis' own store-and-forward: a core bridge
 * from its queue {@code bench} to the address {@code bench} of the server at that core port, confirmation window 1 MiB
 * (Artemis' documented default: a message leaves the source queue once the target confirmed it), duplicate detection
 * on (the default), retry every 100 ms without limit.
 *
 * <p>Arguments: {@code --name NAME --data DIR [--bridge-to CORE_URI]}. Prints
 * {@code READY tcp://127.0.0.1:STOMP_PORT core=tcp://127.0.0.1:CORE_PORT journal=TYPE} once started; runs until stdin
 * closes. Command {@code stats} answers {@code STATS messages=N} (messages in {@code bench}, delivering included).
 */
public final class ArtemisBrokerMain {

    static final String QUEUE = "bench";
    static final String STOMP_OPTIONS = "protocols=STOMP;anycastPrefix=/queue/;multicastPrefix=/topic/;tcpNoDelay=true;connectionTtl=3600000";
    /** Artemis' documented default confirmation window of a core bridge, set explicitly: it is what makes it store-and-forward. */
    static final int CONFIRMATION_WINDOW = 1024 * 1024;

    private ArtemisBrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.activemq.audit", "warn");
        String name = "artemis";
        Path data = null;
        String bridgeTo = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--data" -> data = Path.of(args[++i]);
                case "--bridge-to" -> bridgeTo = args[++i];
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --data, --bridge-to");
                    System.exit(2);
                }
            }
        }
        if (data == null) {
            System.out.println("ERROR --data is required");
            System.exit(2);
        }
        ActiveMQServer server = ActiveMQServers.newActiveMQServer(configuration(name, data, bridgeTo), true);
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(server), "artemis-bench-stop"));
        int stomp = ((NettyAcceptor) server.getRemotingService().getAcceptor("stomp")).getActualPort();
        int core = ((NettyAcceptor) server.getRemotingService().getAcceptor("core")).getActualPort();
        JournalType journal = server.getConfiguration().getJournalType();
        ChildProtocol.ready("tcp://127.0.0.1:" + stomp + " core=tcp://127.0.0.1:" + core + " journal="
                + (journal == JournalType.ASYNCIO && !AIOSequentialFileFactory.isSupported() ? "NIO" : journal.name()));
        ChildProtocol.serve(command -> switch (command) {
            case "stats" -> "STATS messages=" + server.locateQueue(QUEUE).getMessageCount();
            default -> "ERROR unknown command '" + command + "'";
        });
        stop(server);
        System.exit(0);
    }

    /** The server's configuration: see the class comment. */
    static Configuration configuration(String name, Path data, String bridgeTo) throws Exception {
        Configuration c = new ConfigurationImpl()
                .setName(name)
                .setPersistenceEnabled(true)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .setJournalDirectory(data.resolve("journal").toString())
                .setBindingsDirectory(data.resolve("bindings").toString())
                .setPagingDirectory(data.resolve("paging").toString())
                .setLargeMessagesDirectory(data.resolve("large").toString())
                .addAcceptorConfiguration("core", "tcp://127.0.0.1:0?protocols=CORE;tcpNoDelay=true")
                .addAcceptorConfiguration("stomp", "tcp://127.0.0.1:0?" + STOMP_OPTIONS)
                .addQueueConfiguration(QueueConfiguration.of(QUEUE).setAddress(QUEUE).setRoutingType(RoutingType.ANYCAST).setDurable(true));
        if (bridgeTo != null) {
            c.addConnectorConfiguration("peer", bridgeTo);
            c.getBridgeConfigurations().add(new BridgeConfiguration().setName("bench-bridge").setQueueName(QUEUE)
                    .setForwardingAddress(QUEUE).setStaticConnectors(List.of("peer")).setConfirmationWindowSize(CONFIRMATION_WINDOW)
                    .setRetryInterval(100).setReconnectAttempts(-1));
        }
        return c;
    }

    private static void stop(ActiveMQServer server) {
        try {
            server.stop();
        } catch (Exception e) {
            System.err.println("Artemis did not stop cleanly: " + e);
        }
    }
}
