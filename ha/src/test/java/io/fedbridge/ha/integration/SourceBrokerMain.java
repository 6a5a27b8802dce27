package io.fedbridge.ha.integration;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Run by {@link ChildSource} in a child JVM, to be killed: an ordinary broker named {@code args[0]} on
 * {@code tcp://127.0.0.1:0} with its data in {@code args[1]}; prints {@code READY <uri>} and runs until it is killed,
 * or until its standard input closes (the test JVM is gone), so that no broker outlives its test.
 */
public final class SourceBrokerMain {

    private SourceBrokerMain() {
    }

    public static void main(String[] args) throws IOException {
        Broker broker = Broker.start(BrokerConfig.builder(args[0]).listen("tcp://127.0.0.1:0").dataDirectory(Path.of(args[1])).build());
        System.out.println("READY " + broker.connectUris().get(0));
        System.out.flush();
        while (System.in.read() != -1) {
            // nothing is ever written: this only waits for the parent to go away
        }
        Runtime.getRuntime().halt(2);
    }
}
