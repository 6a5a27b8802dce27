package io.fedbridge.broker.integration.security;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.core.ClientConfig;
import io.fedbridge.core.StompConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;

/**
 * Shared base of the security integration tests: brokers on port 0, clients, users files with hashed
 * passwords, and the test certificates; everything is closed after each test.
 */
abstract class SecurityTestSupport {

    static final Duration WAIT = Duration.ofSeconds(15);
    /** Enough PBKDF2 iterations to be real, few enough to keep tests quick. */
    static final int TEST_ITERATIONS = PropertiesUserStore.MIN_ITERATIONS;
    private static final AtomicInteger NAMES = new AtomicInteger();

    protected final List<AutoCloseable> resources = new ArrayList<>();

    static TestCertificates certs() {
        return TestCertificates.get();
    }

    static String uniqueName(String prefix) {
        return prefix + "-" + NAMES.incrementAndGet();
    }

    /** A users-file line: {@code name = pbkdf2:...; groups=...}. */
    static String userLine(String name, String password, String groups) {
        return name + " = " + PropertiesUserStore.hash(password.toCharArray(), TEST_ITERATIONS)
                + (groups == null ? "" : "; groups=" + groups);
    }

    protected Broker start(BrokerConfig.Builder builder) {
        Broker b = Broker.start(builder.build());
        resources.add(b);
        return b;
    }

    protected StompConnection connect(ClientConfig config) {
        StompConnection c = StompConnection.connect(config);
        resources.add(0, c);
        return c;
    }

    /** A client config for {@code uri} without heart-beats, logging in as {@code login} (null: none). */
    static ClientConfig.Builder client(String uri, String login, String passcode) {
        return ClientConfig.builder(uri).login(login).passcode(passcode).heartBeats(Duration.ZERO)
                .connectTimeout(Duration.ofSeconds(10));
    }

    protected <T extends AutoCloseable> T track(T resource) {
        resources.add(0, resource);
        return resource;
    }

    @AfterEach
    void closeResources() {
        for (AutoCloseable c : resources) {
            try {
                c.close();
            } catch (Exception e) {
                // already closed by the test
            }
        }
        resources.clear();
    }
}
