package io.fedbridge.ha.integration;

import io.fedbridge.broker.BrokerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The configurations of an HA group's members on loopback. A group's members must know each other's URIs before
 * they start, so the ports are taken from the OS (port 0) and released just before the members bind them.
 */
final class HaGroupConfigs {

    final List<String> uris = new ArrayList<>();
    final List<BrokerConfig> configs = new ArrayList<>();

    HaGroupConfigs(String group, int members, Path dir, String zookeeper, Consumer<BrokerConfig.Builder> extra) throws IOException {
        for (int i = 0; i < members; i++) {
            uris.add("tcp://127.0.0.1:" + freePort());
        }
        for (int i = 0; i < members; i++) {
            BrokerConfig.Builder b = BrokerConfig.builder(group + "-" + (i + 1)).listen(uris.get(i))
                    .dataDirectory(dir.resolve("m" + (i + 1)))
                    .ha(h -> h.group(group).brokers(uris).zookeeper(zookeeper));
            extra.accept(b);
            configs.add(b.build());
        }
    }

    /** The failover URI a client of the group uses. */
    String failoverUri() {
        return "failover:(" + String.join(",", uris) + ")";
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }
}
