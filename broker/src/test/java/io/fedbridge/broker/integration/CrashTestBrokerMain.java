package io.fedbridge.broker.integration;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Run by {@link ChildBroker} in a child JVM, to be killed: starts a broker named {@code crash} on
 * {@code tcp://127.0.0.1:0} with its data in {@code args[0]} (SYNC durability, the default), prints
 * {@code READY <uri>} and runs until it is killed. It also exits when its standard input closes, i.e. when the
 * test JVM is gone, so that no broker outlives its test.
 */
public final class CrashTestBrokerMain {

    private CrashTestBrokerMain() {
    }

    public static void main(String[] args) throws IOException {
        Broker broker = Broker.start(BrokerConfig.builder("crash").listen("tcp://127.0.0.1:0")
                .dataDirectory(Path.of(args[0])).build());
        System.out.println("READY " + broker.connectUris().get(0));
        System.out.flush();
        while (System.in.read() != -1) {
            // nothing is ever written: this only waits for the parent to go away
        }
        Runtime.getRuntime().halt(2);
    }
}
