package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.Operation;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.StompErrorException;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Login and passcode against a users file: good and bad logins, anonymous access, lockout, floods. */
class AuthenticationIT extends SecurityTestSupport {

    private final String alicePassword = "alice-pw-" + System.nanoTime();
    private final String bobPassword = "bob-pw-" + System.nanoTime();
    private final MutableClock clock = new MutableClock();

    private PropertiesUserStore users() {
        return PropertiesUserStore.parse(userLine("alice", alicePassword, "apps") + "\n"
                + userLine("bob", bobPassword, null) + "\n", "users");
    }

    private Broker secured(SecurityConfig.Builder security) {
        return start(BrokerConfig.builder(uniqueName("auth")).listen("tcp://127.0.0.1:0")
                .security(security.authenticator(users()).clock(clock).build()));
    }

    private static String tcp(Broker b) {
        return b.connectUris().get(0);
    }

    @Test
    void shouldAdmitAValidLogin() throws Exception {
        Broker broker = secured(SecurityConfig.builder());
        StompConnection alice = connect(client(tcp(broker), "alice", alicePassword).build());
        Subscription s = alice.subscribeAndWait(SubscriptionRequest.of("/queue/a"), null, WAIT);
        alice.send(Message.of("/queue/a", "hi")).get();
        assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("hi");
    }

    @Test
    void shouldRejectAWrongPasswordWithAClearErrorThatHidesThePassword() {
        Broker broker = secured(SecurityConfig.builder());
        String wrong = "wrong-" + System.nanoTime();
        assertThatThrownBy(() -> connect(client(tcp(broker), "alice", wrong).build()))
                .isInstanceOf(StompErrorException.class)
                .hasMessageContaining("login failed for user 'alice': unknown user or wrong passcode")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(wrong).doesNotContain(alicePassword));
        // the ERROR reaches the client before the broker has finished closing its side
        org.awaitility.Awaitility.await().atMost(WAIT).until(() -> broker.connectionCount() == 0);
    }

    @Test
    void shouldRejectAnUnknownUserWithTheSameError() {
        Broker broker = secured(SecurityConfig.builder());
        assertThatThrownBy(() -> connect(client(tcp(broker), "mallory", alicePassword).build()))
                .isInstanceOf(StompErrorException.class)
                .hasMessageContaining("login failed for user 'mallory': unknown user or wrong passcode");
    }

    @Test
    void shouldRejectAConnectionWithoutCredentialsUnlessAnonymousAccessIsAllowed() throws Exception {
        Broker closed = secured(SecurityConfig.builder());
        assertThatThrownBy(() -> connect(client(tcp(closed), null, null).build()))
                .isInstanceOf(StompErrorException.class)
                .hasMessageContaining("login required: this broker does not accept anonymous connections");

        AuthorizationRules rules = AuthorizationRules.builder()
                .allow("/topic/public.>", EnumSet.of(Operation.READ, Operation.WRITE), "group:anonymous")
                .allow("/queue/>", EnumSet.of(Operation.READ, Operation.WRITE), "group:apps").build();
        Broker open = secured(SecurityConfig.builder().allowAnonymous(true).authorizer(rules));
        StompConnection anonymous = connect(client(tcp(open), null, null).build());
        anonymous.send(Message.of("/topic/public.news", "ok")).get();
        assertThatThrownBy(() -> anonymous.send(Message.of("/queue/orders", "no")).get())
                .hasMessageContaining("SEND denied: user 'anonymous' has no write permission on /queue/orders");
        // A wrong password is still wrong when anonymous access is allowed.
        assertThatThrownBy(() -> connect(client(tcp(open), "alice", "nope").build()))
                .hasMessageContaining("login failed for user 'alice'");
    }

    @Test
    void shouldLockOutAnAddressAfterRepeatedFailuresWhileOtherAddressesLogIn() throws Exception {
        Broker broker = secured(SecurityConfig.builder().maxFailedLogins(3).loginLockout(Duration.ofSeconds(30)));
        StompConnection bystander = connect(client(tcp(broker), "bob", bobPassword).build());
        for (int i = 0; i < 3; i++) {
            try (RawClient attacker = RawClient.connect(tcp(broker), "127.0.0.2")) {
                RawClient.Frame answer = attacker.login("alice", "guess-" + i);
                assertThat(answer.command()).isEqualTo("ERROR");
                assertThat(answer.header("message")).contains("login failed for user 'alice'");
                assertThat(attacker.isClosedByPeer()).isTrue();
            }
        }
        try (RawClient attacker = RawClient.connect(tcp(broker), "127.0.0.2")) {
            RawClient.Frame answer = attacker.login("alice", alicePassword); // even the right password
            assertThat(answer.command()).isEqualTo("ERROR");
            assertThat(answer.header("message")).isEqualTo("too many failed logins from 127.0.0.2; try again in 30 s");
        }
        // 127.0.0.1 is not locked out, and established connections carry on.
        connect(client(tcp(broker), "alice", alicePassword).build());
        bystander.send(Message.of("/queue/b", "still here")).get();

        clock.advance(Duration.ofSeconds(31));
        try (RawClient former = RawClient.connect(tcp(broker), "127.0.0.2")) {
            assertThat(former.login("alice", alicePassword).command()).isEqualTo("CONNECTED");
        }
    }

    @Test
    void shouldDoubleTheLockoutForEachFurtherRunOfFailures() throws Exception {
        Broker broker = secured(SecurityConfig.builder().maxFailedLogins(1).loginLockout(Duration.ofSeconds(10))
                .maxLoginLockout(Duration.ofSeconds(25)));
        assertThat(failOnceFrom(broker, "127.0.0.3")).contains("login failed");
        assertThat(failOnceFrom(broker, "127.0.0.3")).endsWith("try again in 10 s");
        clock.advance(Duration.ofSeconds(11));
        assertThat(failOnceFrom(broker, "127.0.0.3")).contains("login failed");
        assertThat(failOnceFrom(broker, "127.0.0.3")).endsWith("try again in 20 s");
        clock.advance(Duration.ofSeconds(21));
        assertThat(failOnceFrom(broker, "127.0.0.3")).contains("login failed");
        assertThat(failOnceFrom(broker, "127.0.0.3")).as("capped at maxLoginLockout").endsWith("try again in 25 s");
    }

    private static String failOnceFrom(Broker broker, String address) throws Exception {
        try (RawClient c = RawClient.connect(tcp(broker), address)) {
            return c.login("alice", "bad").header("message");
        }
    }

    @Test
    void shouldKeepServingOthersDuringAFloodOfBadLogins() throws Exception {
        Broker broker = secured(SecurityConfig.builder().maxFailedLogins(5).authenticationThreads(1));
        StompConnection bystander = connect(client(tcp(broker), "bob", bobPassword).build());
        Subscription s = bystander.subscribeAndWait(SubscriptionRequest.of("/queue/bystander"), null, WAIT);
        ExecutorService flood = Executors.newFixedThreadPool(16);
        List<CompletableFuture<String>> answers = new ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                String guess = "guess-" + i;
                answers.add(CompletableFuture.supplyAsync(() -> {
                    try (RawClient c = RawClient.connect(tcp(broker), "127.0.0.4")) {
                        return c.login("alice", guess).header("message");
                    } catch (Exception e) {
                        return "io: " + e.getMessage();
                    }
                }, flood));
            }
            // Meanwhile, someone else logs in and the established connection round-trips, promptly.
            long t0 = System.nanoTime();
            StompConnection alice = connect(client(tcp(broker), "alice", alicePassword).build());
            alice.send(Message.of("/queue/bystander", "during the flood")).get(5, TimeUnit.SECONDS);
            assertThat(s.receive(WAIT).bodyAsString()).isEqualTo("during the flood");
            assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
            CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        } finally {
            flood.shutdownNow();
        }
        long hashed = answers.stream().map(CompletableFuture::join).filter(m -> m.startsWith("login failed")).count();
        long refused = answers.stream().map(CompletableFuture::join)
                .filter(m -> m.startsWith("too many failed logins") || m.startsWith("too many logins in progress")).count();
        assertThat(hashed + refused).as("every bad login got an ERROR").isEqualTo(200);
        assertThat(hashed).as("the attacker's address is throttled, so few passwords are even hashed").isLessThan(20);
    }

    /** A clock tests move by hand. */
    static final class MutableClock extends Clock {
        private volatile Instant now = Instant.parse("2030-01-01T00:00:00Z");

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }
}
