package io.fedbridge.broker.testing;

import java.nio.file.Path;
import org.apache.activemq.artemis.api.core.SimpleString;
import org.apache.activemq.artemis.core.config.Configuration;
import org.apache.activemq.artemis.core.config.impl.ConfigurationImpl;
import org.apache.activemq.artemis.core.remoting.impl.netty.NettyAcceptor;
import org.apache.activemq.artemis.core.server.ActiveMQServer;
import org.apache.activemq.artemis.core.server.ActiveMQServers;
import org.apache.activemq.artemis.core.server.JournalType;
import org.apache.activemq.artemis.core.server.Queue;

/**
 * An Apache ActiveMQ Artemis server in this JVM, as a foreign peer: persistent (its journal under a test's
 * directory, so a {@link #restart()} keeps what it stored; written without fsync), security off, one STOMP acceptor on loopback with
 * Artemis' default settings (no {@code anycastPrefix}/{@code multicastPrefix}), on a port chosen by the OS at the
 * first start and kept across restarts. Not thread-safe: one test drives it.
 */
public final class EmbeddedArtemis implements AutoCloseable {

    private static final String ACCEPTOR = "stomp";

    private final Path dataDir;
    private final String name;
    private final String acceptorOptions;
    private ActiveMQServer server;
    private int port;

    private EmbeddedArtemis(Path dataDir, String name, String acceptorOptions) {
        this.dataDir = dataDir;
        this.name = name;
        this.acceptorOptions = acceptorOptions;
    }

    /** Starts a server named {@code name} keeping its journal under {@code dataDir}. */
    public static EmbeddedArtemis start(Path dataDir, String name) throws Exception {
        EmbeddedArtemis a = new EmbeddedArtemis(dataDir, name, "");
        a.startServer();
        return a;
    }

    /**
     * Like {@link #start}, with the STOMP acceptor set up as Artemis' docs suggest for STOMP clients
     * ({@code anycastPrefix=/queue/;multicastPrefix=/topic/}): a client's {@code /queue/orders} is the anycast queue
     * {@code orders}, {@code /topic/prices} the multicast address {@code prices}, with no Artemis headers.
     */
    public static EmbeddedArtemis startWithStompPrefixes(Path dataDir, String name) throws Exception {
        EmbeddedArtemis a = new EmbeddedArtemis(dataDir, name, ";anycastPrefix=/queue/;multicastPrefix=/topic/");
        a.startServer();
        return a;
    }

    private void startServer() throws Exception {
        Configuration c = new ConfigurationImpl()
                .setName(name)
                .setPersistenceEnabled(true)
                .setSecurityEnabled(false)
                .setJMXManagementEnabled(false)
                .setJournalType(JournalType.NIO)
                // Written to the journal, not fsync'ed: a restart here is a clean stop, and a sync per receipted SEND
                // made a few hundred messages take 30 s on a shared CI disk.
                .setJournalDatasync(false)
                .setJournalDirectory(dataDir.resolve("journal").toString())
                .setBindingsDirectory(dataDir.resolve("bindings").toString())
                .setPagingDirectory(dataDir.resolve("paging").toString())
                .setLargeMessagesDirectory(dataDir.resolve("large").toString())
                .addAcceptorConfiguration(ACCEPTOR, "tcp://127.0.0.1:" + port + "?protocols=STOMP;useEpoll=false" + acceptorOptions);
        ActiveMQServer s = ActiveMQServers.newActiveMQServer(c, true);
        s.start();
        server = s;
        port = ((NettyAcceptor) s.getRemotingService().getAcceptor(ACCEPTOR)).getActualPort();
    }

    /** {@code tcp://127.0.0.1:PORT} of the STOMP acceptor; the same after {@link #restart()}. */
    public String stompUri() {
        return "tcp://127.0.0.1:" + port;
    }

    /** Stops the server (connections drop; stored messages stay in the journal) and starts it again on the same port. */
    public void restart() throws Exception {
        stop();
        startServer();
    }

    /** Messages in the queue {@code name} (an Artemis queue name, e.g. {@code orders}); 0 if there is no such queue. */
    public long messageCount(String queue) {
        Queue q = server.locateQueue(SimpleString.of(queue));
        return q == null ? 0 : q.getMessageCount();
    }

    /** Consumers on the queues bound to the address {@code address}. */
    public int consumers(String address) throws Exception {
        int n = 0;
        org.apache.activemq.artemis.core.postoffice.Bindings bindings = server.getPostOffice().lookupBindingsForAddress(SimpleString.of(address));
        if (bindings != null) {
            for (org.apache.activemq.artemis.core.postoffice.Binding b : bindings.getBindings()) {
                if (b instanceof org.apache.activemq.artemis.core.postoffice.QueueBinding qb) {
                    n += qb.getQueue().getConsumerCount();
                }
            }
        }
        return n;
    }

    public ActiveMQServer server() {
        return server;
    }

    public void stop() throws Exception {
        ActiveMQServer s = server;
        server = null;
        if (s != null) {
            s.stop();
        }
    }

    @Override
    public void close() throws Exception {
        stop();
    }
}
