package io.fedbridge.benchmarks;

import java.io.File;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import org.apache.activemq.broker.BrokerService;
import org.apache.activemq.broker.TransportConnector;
import org.apache.activemq.network.NetworkBridge;
import org.apache.activemq.network.NetworkConnector;

/**
 * Child JVM: an embedded ActiveMQ Classic broker with one STOMP connector,
 * {@code stomp://127.0.0.1:0?transport.tcpNoDelay=true} (Nagle off, as fedbridge). Prints
 * {@code READY tcp://127.0.0.1:PORT startMicros=T startedMicros=T [openwire=tcp://127.0.0.1:PORT]} (wall clock, µs since
 * the epoch, before configuring the broker and once it has started) and runs until its stdin closes.
 *
 * <p>Without options, the settings of the non-persistent {@code throughput} benchmark: persistence off (no
 * KahaDB), JMX off, advisory messages off (nothing there consumes them; with them on, every consumer and
 * producer start would also publish an advisory), no shutdown hook of its own. Everything else — producer flow
 * control, memory limits, prefetch policy, the blocking {@code stomp://} transport — is ActiveMQ's default.
 * Options:
 * <ul>
 *   <li>{@code --name NAME}: the broker name (default {@code bench});</li>
 *   <li>{@code --data DIR}: persistent, KahaDB in DIR with its default durability (a disk sync per journal
 *       write batch);</li>
 *   <li>{@code --openwire}: also an OpenWire connector on {@code tcp://127.0.0.1:0} (what network connectors
 *       of other brokers connect to);</li>
 *   <li>{@code --advisories}: advisory messages on (a network of brokers needs them);</li>
 *   <li>{@code --network-connector URI} (repeatable): e.g. {@code static:(tcp://127.0.0.1:OPENWIRE_PORT)} or
 *       {@code multicast://…}, defaults otherwise (conduit subscriptions, networkTTL 1);</li>
 *   <li>{@code --network-ttl N}: networkTTL of those network connectors;</li>
 *   <li>{@code --discovery URI}: the OpenWire connector advertises itself there (multicast discovery);</li>
 *   <li>{@code --watch-bridges}: note when the number of bridges up changes, every millisecond.</li>
 * </ul>
 * Commands on stdin: {@code stats} answers {@code STATS up=N bridges=N forwarded=N dispatched=N}, summed over
 * every network bridge: {@code forwarded} is its dequeue counter (messages sent to the peer and acknowledged
 * locally), {@code dispatched} its enqueue counter (messages the local broker handed to the bridge). A bridge
 * counts as up once it knows the remote broker's name (the handshake with the peer is done) and that is not its own
 * (ActiveMQ's discovery also hears the broker's own advertisement; such a bridge is torn down at once).
 */
public final class ActiveMqBrokerMain {

    static final String CONNECTOR = "stomp://127.0.0.1:0?transport.tcpNoDelay=true";
    static final String OPENWIRE = "tcp://127.0.0.1:0?transport.tcpNoDelay=true";

    private ActiveMqBrokerMain() {
    }

    public static void main(String[] args) throws Exception {
        String name = "bench";
        String data = null;
        boolean openwire = false;
        boolean advisories = false;
        boolean watch = false;
        int networkTtl = -1;
        String discovery = null;
        List<String> connectors = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--name" -> name = args[++i];
                case "--data" -> data = args[++i];
                case "--openwire" -> openwire = true;
                case "--advisories" -> advisories = true;
                case "--network-connector" -> connectors.add(args[++i]);
                case "--network-ttl" -> networkTtl = Integer.parseInt(args[++i]);
                case "--discovery" -> discovery = args[++i];
                case "--watch-bridges" -> watch = true;
                default -> {
                    System.out.println("ERROR unknown option '" + args[i] + "'; valid: --name, --data, --openwire, --advisories,"
                            + " --network-connector, --network-ttl, --discovery, --watch-bridges");
                    System.exit(2);
                }
            }
        }
        long startMicros = BridgeWatch.nowMicros();
        BrokerService broker = new BrokerService();
        broker.setBrokerName(name);
        broker.setPersistent(data != null);
        if (data != null) {
            broker.setDataDirectoryFile(new File(data));
        }
        broker.setUseJmx(false);
        broker.setAdvisorySupport(advisories);
        broker.setUseShutdownHook(false);
        TransportConnector stomp = broker.addConnector(CONNECTOR);
        TransportConnector ow = null;
        if (openwire || discovery != null) {
            ow = broker.addConnector(OPENWIRE);
            if (discovery != null) {
                ow.setDiscoveryUri(new URI(discovery));
            }
        }
        for (String uri : connectors) {
            NetworkConnector nc = broker.addNetworkConnector(uri);
            if (networkTtl > 0) {
                nc.setNetworkTTL(networkTtl);
            }
        }
        broker.start();
        broker.waitUntilStarted();
        long startedMicros = BridgeWatch.nowMicros();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(broker), "activemq-bench-broker-stop"));
        BridgeWatch watcher = watch ? BridgeWatch.start(() -> up(broker)) : null;
        InetSocketAddress bound = stomp.getServer().getSocketAddress();
        String ready = "tcp://127.0.0.1:" + bound.getPort() + " startMicros=" + startMicros + " startedMicros=" + startedMicros;
        if (ow != null) {
            ready += " openwire=tcp://127.0.0.1:" + ow.getServer().getSocketAddress().getPort();
        }
        ChildProtocol.ready(ready);
        ChildProtocol.serve(command -> switch (command) {
            case "stats" -> stats(broker) + (watcher != null ? " " + watcher.describe() : "");
            default -> "ERROR unknown command '" + command + "'";
        });
        stop(broker);
        System.exit(0);
    }

    private static int up(BrokerService broker) {
        int n = 0;
        for (NetworkConnector nc : broker.getNetworkConnectors()) {
            for (NetworkBridge b : nc.activeBridges()) {
                String remote = b.getRemoteBrokerName();
                if (remote != null && !remote.equals(broker.getBrokerName())) {
                    n++;
                }
            }
        }
        return n;
    }

    private static String stats(BrokerService broker) {
        int bridges = 0;
        long forwarded = 0;
        long dispatched = 0;
        for (NetworkConnector nc : broker.getNetworkConnectors()) {
            for (NetworkBridge b : nc.activeBridges()) {
                bridges++;
                forwarded += b.getDequeueCounter();
                dispatched += b.getEnqueueCounter();
            }
        }
        return "STATS up=" + up(broker) + " bridges=" + bridges + " forwarded=" + forwarded + " dispatched=" + dispatched;
    }

    private static void stop(BrokerService broker) {
        try {
            broker.stop();
            broker.waitUntilStopped();
        } catch (Exception e) {
            System.err.println("ActiveMQ did not stop cleanly: " + e);
        }
    }
}
