package io.fedbridge.broker.integration.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.fedbridge.broker.Broker;
import io.fedbridge.broker.BrokerConfig;
import io.fedbridge.broker.management.ManagementDestinations;
import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.PropertiesUserStore;
import io.fedbridge.broker.security.SecurityConfig;
import io.fedbridge.core.Message;
import io.fedbridge.core.ReceivedMessage;
import io.fedbridge.core.StompConnection;
import io.fedbridge.core.Subscription;
import io.fedbridge.core.SubscriptionRequest;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * On a secured broker the management API needs {@code admin} on its request queue, its events topic is the broker's
 * alone, and a failed login is an event an operator sees.
 */
class ManagementSecurityIT extends SecurityTestSupport {

    private static final String RULES = """
            /queue/>                          read,write  group:apps, group:ops
            /temp-queue/>                     read,write  group:apps, group:ops
            /topic/>                          read,write  group:apps
            /queue/fedbridge.management       admin       group:ops
            /topic/fedbridge.management.>     admin       group:ops
            """;
    private final String password = "pw-" + System.nanoTime();

    private Broker secured() {
        PropertiesUserStore users = PropertiesUserStore.parse(userLine("alice", password, "apps") + "\n"
                + userLine("olga", password, "ops") + "\n", "users");
        return start(BrokerConfig.builder(uniqueName("S")).listen("tcp://127.0.0.1:0").heartBeat(Duration.ZERO)
                .security(SecurityConfig.builder().authenticator(users).authorizer(AuthorizationRules.parse(RULES, "rules")).build()));
    }

    private StompConnection as(Broker b, String user) {
        return connect(client(b.connectUris().get(0), user, password).build());
    }

    private static Message request(String json) {
        return Message.builder(ManagementDestinations.REQUESTS).header("reply-to", "/temp-queue/r").body(json).build();
    }

    @Test
    void shouldAnswerAnAdminAndRefuseAUserWithoutAdminNamingTheRight() throws Exception {
        Broker b = secured();
        StompConnection olga = as(b, "olga");
        Subscription replies = olga.subscribeAndWait(SubscriptionRequest.of("/temp-queue/r"), null, WAIT);
        olga.send(request("{\"op\":\"get\",\"type\":\"broker\"}")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        ReceivedMessage answer = replies.receive(WAIT);
        assertThat(answer.bodyAsString()).contains("\"status\":\"ok\"").contains("\"securityMode\":\"authenticated+authorized\"");

        StompConnection alice = as(b, "alice");
        Throwable denied = catchThrowable(() -> alice.send(request("{\"op\":\"invoke\",\"type\":\"queue\",\"name\":\"/queue/x\","
                + "\"method\":\"create\"}")).get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(denied).hasMessageContaining("user 'alice' has no admin permission on /queue/fedbridge.management");
        assertThat(b.queue("/queue/x")).as("nothing was done").isNull();
    }

    @Test
    void shouldLetNobodySendToTheEventsTopicAndOnlyAdminsReadIt() throws Exception {
        Broker b = secured();
        StompConnection olga = as(b, "olga");
        Throwable forged = catchThrowable(() -> olga.send(Message.of(ManagementDestinations.EVENTS, "{\"type\":\"link-up\"}"))
                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertThat(forged).as("not even an admin").hasMessageContaining("published by the broker only");

        StompConnection alice = as(b, "alice");
        Throwable read = catchThrowable(() -> alice.subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), null, WAIT));
        assertThat(read).hasMessageContaining("user 'alice' has no admin permission on /topic/fedbridge.management.events");
        StompConnection alice2 = as(b, "alice");
        Throwable wildcard = catchThrowable(() -> alice2.subscribeAndWait(SubscriptionRequest.of("/topic/>"), null, WAIT));
        assertThat(wildcard).as("a wildcard that covers the events needs admin too").hasMessageContaining("no admin permission");
        StompConnection alice3 = as(b, "alice");
        Throwable steal = catchThrowable(() -> alice3.subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.REQUESTS), null, WAIT));
        assertThat(steal).hasMessageContaining("is answered by the broker");
    }

    @Test
    void shouldPublishAFailedLoginAsAnEvent() throws Exception {
        Broker b = secured();
        Subscription events = as(b, "olga").subscribeAndWait(SubscriptionRequest.of(ManagementDestinations.EVENTS), null, WAIT);
        Throwable refused = catchThrowable(() -> connect(client(b.connectUris().get(0), "alice", "Xyzzy-guess").build()));
        assertThat(refused).isNotNull();
        ReceivedMessage e;
        do {
            e = events.receive(WAIT);
            assertThat(e).as("login-failed event").isNotNull();
        } while (!"login-failed".equals(e.header(ManagementDestinations.EVENT_TYPE)));
        assertThat(e.bodyAsString()).contains("\"login\":\"alice\"").doesNotContain("Xyzzy-guess");
    }
}
