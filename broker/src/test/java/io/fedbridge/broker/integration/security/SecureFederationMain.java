package io.fedbridge.broker.integration.security;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.BridgeState;
import io.fedbridge.core.tls.TlsConfig;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Run by {@link SecretsInLogsIT} in a child JVM with DEBUG logging: does everything that handles a secret
 * (TLS stores, user passwords, a bridge password, wrong passwords, denied operations, a store that will not
 * open), logs every config's {@code toString()} and every JMX attribute, then prints {@code SCENARIO DONE}.
 * The secrets arrive in environment variables, never on the command line.
 */
public final class SecureFederationMain {

    private static final Logger LOG = LoggerFactory.getLogger(SecureFederationMain.class);
    private static final Duration WAIT = Duration.ofSeconds(20);

    private SecureFederationMain() {
    }

    public static void main(String[] args) throws Exception {
        String storePassword = System.getenv("FB_STORE_PASSWORD");
        String alicePassword = System.getenv("FB_ALICE_PASSWORD");
        String bridgePassword = System.getenv("FB_BRIDGE_PASSWORD");
        String wrongPassword = System.getenv("FB_WRONG_PASSWORD");
        Path trustStore = Path.of(System.getenv("FB_TRUST_STORE"));
        Path serverKeyStore = Path.of(System.getenv("FB_SERVER_KEY_STORE"));
        String usersText = System.getenv("FB_USERS");

        String rulesA = """
                /queue/shared.>             read,write  group:apps
                /queue/shared.>             read,write,federate  group:bridges
                /queue/restricted.>         read,write  group:apps
                /queue/restricted.>         read,write,federate  group:bridges
                /topic/fedbridge.advisory.> admin       group:bridges
                """;
        String rulesB = """
                /queue/shared.>             read,write  group:apps
                /queue/shared.>             read,write,federate  group:bridges
                /queue/restricted.>         read,write  group:apps
                /queue/restricted.>         federate    group:bridges
                /topic/fedbridge.advisory.> admin       group:bridges
                """;
        TlsConfig serverTls = TlsConfig.builder().keyStore(serverKeyStore).keyStorePassword(storePassword)
                .trustStore(trustStore).trustStorePassword(storePassword).build();
        TlsConfig clientTls = TlsConfig.builder().trustStore(trustStore).trustStorePassword(storePassword).build();
        String tlsOptions = "trustStore=" + trustStore + "&trustStorePassword=" + storePassword;

        SecurityConfig securityA = SecurityConfig.builder().tls(serverTls)
                .authenticator(PropertiesUserStore.parse(usersText, "users-A"))
                .authorizer(AuthorizationRules.parse(rulesA, "rules-A")).build();
        SecurityConfig securityB = SecurityConfig.builder()
                .authenticator(PropertiesUserStore.parse(usersText, "users-B"))
                .authorizer(AuthorizationRules.parse(rulesB, "rules-B")).build();
        BrokerConfig configB = BrokerConfig.builder("B").listen("ssl://127.0.0.1:0?keyStore=" + serverKeyStore
                + "&keyStorePassword=" + storePassword + "&trustStore=" + trustStore + "&trustStorePassword=" + storePassword)
                .security(securityB).build();
        try (Broker b = Broker.start(configB)) {
            String peer = b.connectUris().get(0);
            // Secrets in the peer URI itself, and on the connector: both must stay out of the logs.
            BrokerConfig configA = BrokerConfig.builder("A").listen("ssl://127.0.0.1:0").security(securityA)
                    .networkConnector("static:(" + peer + "?" + tlsOptions + ")?userName=bridge&password=" + bridgePassword
                            + "&initialReconnectDelay=50&maxReconnectDelay=500&heartBeat=1000&" + tlsOptions)
                    .build();
            LOG.info("config A: {}", configA);
            LOG.info("config B: {}", configB);
            LOG.info("security: {}, tls: {}", securityA, serverTls);
            try (Broker a = Broker.start(configA)) {
                ClientConfig aliceOnB = ClientConfig.fromUri(peer + "?login=alice&passcode=" + alicePassword + "&" + tlsOptions);
                ClientConfig aliceOnA = ClientConfig.builder(a.connectUris().get(0)).login("alice").passcode(alicePassword)
                        .tls(clientTls).build();
                LOG.info("client configs: {} {}", aliceOnA, aliceOnB);
                try (StompConnection onB = StompConnection.connect(aliceOnB);
                     StompConnection onA = StompConnection.connect(aliceOnA)) {
                    Subscription shared = onB.subscribeAndWait(SubscriptionRequest.of("/queue/shared.orders"), null, WAIT);
                    Subscription restricted = onB.subscribeAndWait(SubscriptionRequest.of("/queue/restricted.x"), null, WAIT);
                    awaitDemand(a);
                    onA.send(Message.of("/queue/shared.orders", "across")).get(20, TimeUnit.SECONDS);
                    LOG.info("received on B: {}", shared.receive(WAIT));
                    onA.send(Message.of("/queue/restricted.x", "smuggled")).get(20, TimeUnit.SECONDS);
                    LOG.info("restricted on B (expect null): {}", restricted.receive(Duration.ofSeconds(2)));
                }
                attempt("wrong password", () -> StompConnection.connect(aliceOnA.toBuilder().passcode(wrongPassword).build()));
                attempt("unknown user", () -> StompConnection.connect(aliceOnA.toBuilder().login("mallory").build()));
                attempt("forbidden send", () -> {
                    try (StompConnection c = StompConnection.connect(aliceOnA)) {
                        c.send(Message.of("/queue/other", "x")).get(10, TimeUnit.SECONDS);
                    }
                    return null;
                });
                attempt("forbidden subscribe", () -> {
                    try (StompConnection c = StompConnection.connect(aliceOnA)) {
                        c.subscribeAndWait(SubscriptionRequest.of("/topic/fedbridge.advisory.consumer"), null, WAIT);
                    }
                    return null;
                });
                attempt("wrong key store password", () -> Broker.start(BrokerConfig.builder("C")
                        .listen("ssl://127.0.0.1:0?keyStore=" + serverKeyStore + "&keyStorePassword=" + wrongPassword).build()));
                LOG.info("bridges: {}", a.bridges());
                LOG.info("network connectors: {}", a.networkConnectors().stream().map(nc -> nc.uri().toString()).toList());
                a.networkConnectors().forEach(nc -> nc.bridges().forEach(br -> LOG.info("bridge config: {}", br.config())));
                dumpJmx();
            }
        }
        System.out.println("SCENARIO DONE");
        System.exit(0);
    }

    private static void awaitDemand(Broker a) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (a.bridges().stream().anyMatch(s -> s.state() == BridgeState.UP && s.networkSubscriptions() >= 2)) {
                return;
            }
            Thread.sleep(50); // a child process with no Awaitility: poll, bounded
        }
        throw new IllegalStateException("no demand over the bridge within " + WAIT + ": " + a.bridges());
    }

    @FunctionalInterface
    private interface Attempt {
        Object run() throws Exception;
    }

    private static void attempt(String what, Attempt attempt) {
        try {
            Object result = attempt.run();
            LOG.warn("{}: unexpectedly succeeded: {}", what, result);
            if (result instanceof AutoCloseable c) {
                c.close();
            }
        } catch (Exception e) {
            LOG.info("{}: failed as expected", what, e);
        }
    }

    private static void dumpJmx() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (ObjectName name : server.queryNames(new ObjectName("io.fedbridge:*"), null)) {
            for (MBeanAttributeInfo attr : server.getMBeanInfo(name).getAttributes()) {
                Object v;
                try {
                    v = server.getAttribute(name, attr.getName());
                } catch (Exception e) {
                    v = e.toString();
                }
                LOG.info("JMX {} {} = {}", name, attr.getName(), v instanceof Object[] arr ? Arrays.deepToString(arr) : v);
            }
        }
    }
}
