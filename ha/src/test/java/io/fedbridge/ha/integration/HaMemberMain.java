package io.fedbridge.ha.integration;

import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.ha.HaMember;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * An HA member in a child JVM: {@code NAME URI DATA GROUP MEMBERS ZOOKEEPER SESSION_MS [NETWORK]}. Prints
 * {@code STARTED} once started, then {@code ROLE <role> <state> <epoch>} whenever one of them changes.
 */
public final class HaMemberMain {

    private HaMemberMain() {
    }

    public static void main(String[] args) throws Exception {
        String zk = args[5].equals("-") ? null : args[5];
        BrokerConfig.Builder b = BrokerConfig.builder(args[0]).listen(args[1]).dataDirectory(Path.of(args[2]))
                .heartBeat(Duration.ofSeconds(1))
                .ha(h -> h.group(args[3]).brokers(Arrays.asList(args[4].split(","))).zookeeper(zk)
                        .zookeeperSessionTimeout(Duration.ofMillis(Long.parseLong(args[6]))));
        if (args.length > 7) {
            b.networkConnector(args[7]);
        }
        HaMember member = HaMember.start(b.build());
        System.out.println("STARTED " + member.uri());
        System.out.flush();
        String last = "";
        while (true) {
            String now = "ROLE " + member.role().label() + " " + member.state().label() + " " + member.epoch() + " "
                    + member.servingSince();
            if (!now.equals(last)) {
                System.out.println(now);
                System.out.flush();
                last = now;
            }
            Thread.onSpinWait();
            java.util.concurrent.locks.LockSupport.parkNanos(20_000_000);
        }
    }
}
