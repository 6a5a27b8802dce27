package io.fedbridge.core.bridge.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.StompHeaders;
import io.fedbridge.core.SubscriptionRequest;
import io.fedbridge.core.bridge.DestinationMap;
import io.fedbridge.core.bridge.Dialect;
import io.fedbridge.core.bridge.PeerProfile;
import org.junit.jupiter.api.Test;

class PeerNamesTest {

    private static PeerNames connectedTo(String server, String... options) {
        java.util.Map<String, String> o = new java.util.LinkedHashMap<>();
        for (int i = 0; i < options.length; i += 2) {
            o.put(options[i], options[i + 1]);
        }
        return PeerNames.of(PeerProfile.fromOptions(o, "test URI"), StompHeaders.of("server", server), false);
    }

    @Test
    void shouldChooseTheDialectFromTheConnectedServerHeader() {
        assertThat(connectedTo("ActiveMQ-Artemis/2.44.0 ActiveMQ Artemis Messaging Engine").dialect()).isEqualTo(Dialect.ARTEMIS);
        assertThat(connectedTo("RabbitMQ/3.10.8").dialect()).isEqualTo(Dialect.RABBITMQ);
        assertThat(connectedTo("ActiveMQ/6.1.7")).isSameAs(PeerNames.AS_IS);
        assertThat(connectedTo("RabbitMQ/3.10.8", "dialect", "stomp")).as("the URI's choice wins").isSameAs(PeerNames.AS_IS);
        assertThat(PeerNames.of(PeerProfile.AUTO, StompHeaders.of("server", "RabbitMQ/3.10.8"), true))
                .as("a fedbridge broker is spoken to as it is").isSameAs(PeerNames.AS_IS);
    }

    @Test
    void shouldSendToArtemisAddressesWithTheirRoutingType() {
        PeerNames artemis = connectedTo("ActiveMQ-Artemis/2.44.0");
        StompHeaders q = StompHeaders.of("destination", "/queue/orders");
        artemis.prepareSend(q);
        assertThat(q.get("destination")).isEqualTo("orders");
        assertThat(q.get("destination-type")).isEqualTo("ANYCAST");

        StompHeaders t = StompHeaders.of("destination", "/topic/prices.eu");
        artemis.prepareSend(t);
        assertThat(t.get("destination")).isEqualTo("prices.eu");
        assertThat(t.get("destination-type")).isEqualTo("MULTICAST");

        SubscriptionRequest s = artemis.subscription("/topic/prices.>").build();
        assertThat(s.destination()).isEqualTo("prices.#");
        assertThat(s.extraHeaders()).containsEntry("subscription-type", "MULTICAST");
        assertThat(artemis.fedbridgeName("prices.eu.de", "/topic/prices.>")).isEqualTo("/topic/prices.eu.de");
        assertThat(artemis.fedbridgeName("orders", "/queue/orders")).isEqualTo("/queue/orders");
    }

    @Test
    void shouldKeepRabbitMqsQueueAndTopicNamesAndItsStableMessageId() {
        PeerNames rabbit = connectedTo("RabbitMQ/3.10.8");
        StompHeaders q = StompHeaders.of("destination", "/queue/orders");
        rabbit.prepareSend(q);
        assertThat(q.get("destination")).isEqualTo("/queue/orders");
        assertThat(q.get("_AMQ_DUPL_ID")).isNull();
        assertThat(rabbit.subscription("/topic/prices.>").build().destination()).isEqualTo("/topic/prices.#");

        StompHeaders forward = StompHeaders.of("destination", "/queue/orders");
        forward.add("fedbridge-id", "F1:42");
        rabbit.prepareSend(forward);
        assertThat(forward.get("amqp-message-id")).as("for RabbitMQ's consumers to deduplicate by").isEqualTo("F1:42");
        StompHeaders delivery = StompHeaders.of("message-id", "T_sub-1@@session-x@@7");
        assertThat(rabbit.stableMessageId(delivery)).as("without amqp-message-id, only the delivery's id").isEqualTo("T_sub-1@@session-x@@7");
        delivery.add("amqp-message-id", "app-7");
        assertThat(rabbit.stableMessageId(delivery)).isEqualTo("app-7");
    }

    @Test
    void shouldLetArtemisDropAResentForwardAndKnowItsMessagesAcrossARestart() {
        PeerNames artemis = connectedTo("ActiveMQ-Artemis/2.44.0");
        StompHeaders forward = StompHeaders.of("destination", "/queue/orders");
        forward.add("fedbridge-id", "F1:42");
        artemis.prepareSend(forward);
        assertThat(forward.get("_AMQ_DUPL_ID")).as("Artemis' duplicate detection").isEqualTo("F1:42");

        // Artemis' message-id is CONSUMER,MESSAGE: the consumer's part is new after a reconnect, the message's is not.
        assertThat(artemis.stableMessageId(StompHeaders.of("message-id", "33,11")))
                .isEqualTo(artemis.stableMessageId(StompHeaders.of("message-id", "52,11"))).isEqualTo("11");
        assertThat(PeerNames.AS_IS.stableMessageId(StompHeaders.of("message-id", "33,11"))).isEqualTo("33,11");
    }

    @Test
    void shouldLeaveOutPersistentFalseForRabbitMqWhichWouldDeclareItsDurableQueueNonDurable() {
        PeerNames rabbit = connectedTo("RabbitMQ/3.10.8");
        StompHeaders transientSend = StompHeaders.of("destination", "/queue/orders", "persistent", "false");
        rabbit.prepareSend(transientSend);
        assertThat(transientSend.get("persistent")).isNull();
        StompHeaders persistentSend = StompHeaders.of("destination", "/queue/orders", "persistent", "true");
        rabbit.prepareSend(persistentSend);
        assertThat(persistentSend.get("persistent")).isEqualTo("true");

        StompHeaders toArtemis = StompHeaders.of("destination", "/queue/orders", "persistent", "false");
        connectedTo("ActiveMQ-Artemis/2.44.0").prepareSend(toArtemis);
        assertThat(toArtemis.get("persistent")).isEqualTo("false");
    }

    @Test
    void shouldRenameWithTheDestinationMapBeforeTheDialect() {
        PeerNames rabbit = connectedTo("RabbitMQ/3.10.8", "destinationMap", "/queue/orders=/amq/queue/orders;/topic/fx.>=/exchange/fx/>");
        assertThat(rabbit.peerName("/queue/orders")).isEqualTo("/amq/queue/orders");
        assertThat(rabbit.peerName("/topic/fx.eur")).isEqualTo("/exchange/fx/eur");
        assertThat(rabbit.peerName("/queue/other")).isEqualTo("/queue/other");
        assertThat(rabbit.fedbridgeName("/exchange/fx/usd", "/topic/fx.>")).isEqualTo("/topic/fx.usd");

        PeerNames artemis = connectedTo("ActiveMQ-Artemis/2.44.0", "destinationMap", "/queue/legacy=LEGACY.Q");
        StompHeaders h = StompHeaders.of("destination", "/queue/legacy");
        artemis.prepareSend(h);
        assertThat(h.get("destination")).isEqualTo("LEGACY.Q");
        assertThat(h.get("destination-type")).as("a renamed destination is sent as written").isNull();
    }

    @Test
    void shouldParseAndPrintADestinationMap() {
        DestinationMap m = DestinationMap.parse(" /queue/a=/amq/queue/a ; /topic/b.>=/exchange/b/> ;");
        assertThat(m.rules()).hasSize(2);
        assertThat(m.toString()).isEqualTo("/queue/a=/amq/queue/a;/topic/b.>=/exchange/b/>");
        assertThat(m.toPeer("/topic/c")).isNull();
    }

    @Test
    void shouldReadAStaticTopicDurablyWithEachProductsHeaders() {
        SubscriptionRequest artemis = connectedTo("ActiveMQ-Artemis/2.44.0").withDurableSubscriptions("fedbridge.b1")
                .subscription("/topic/prices.>", true).build();
        assertThat(artemis.extraHeaders()).containsEntry("durable-subscription-name", "prices._")
                .containsEntry("subscription-type", "MULTICAST");

        SubscriptionRequest rabbit = connectedTo("RabbitMQ/3.10.8").withDurableSubscriptions("fedbridge.b1")
                .subscription("/topic/prices", true).build();
        assertThat(rabbit.extraHeaders()).containsEntry("durable", "true").containsEntry("auto-delete", "false")
                .containsEntry("x-queue-name", "fedbridge.b1.prices").containsEntry("id", "fedbridge.b1.prices");

        SubscriptionRequest activeMq = connectedTo("ActiveMQ/6.1.7").withDurableSubscriptions("fedbridge.b1")
                .subscription("/topic/prices", true).build();
        assertThat(activeMq.extraHeaders()).containsEntry("activemq.subscriptionName", "prices");
    }

    @Test
    void shouldReadQueuesDemandAndRenamedTopicsPlainly() {
        PeerNames rabbit = connectedTo("RabbitMQ/3.10.8", "destinationMap", "/topic/news=/amq/queue/news.fedbridge")
                .withDurableSubscriptions("fedbridge.b1");
        assertThat(rabbit.subscription("/queue/orders", true).build().extraHeaders()).doesNotContainKey("durable");
        assertThat(rabbit.subscription("/topic/prices", false).build().extraHeaders()).as("demand").doesNotContainKey("durable");
        assertThat(rabbit.subscription("/topic/news", true).build().extraHeaders()).as("renamed").doesNotContainKey("durable");
        assertThat(connectedTo("RabbitMQ/3.10.8").subscription("/topic/prices", true).build().extraHeaders())
                .as("not asked for").doesNotContainKey("durable");
    }

    @Test
    void shouldDeriveAStableDurableSubscriptionNameOrTakeTheUrisOwn() {
        PeerProfile derived = PeerProfile.fromOptions(java.util.Map.of(), "test URI");
        assertThat(derived.durableTopicSubscriptions()).isTrue();
        assertThat(derived.stableSubscriptionName("tcp://artemis:61613->vm://F1"))
                .isEqualTo("fedbridge.tcp_artemis_61613-_vm_F1")
                .isEqualTo(derived.stableSubscriptionName("tcp://artemis:61613->vm://F1"));
        assertThat(derived.stableSubscriptionName("x".repeat(300))).hasSizeLessThanOrEqualTo(120);
        PeerProfile own = PeerProfile.fromOptions(java.util.Map.of("durableSubscriptionName", "orders-bridge",
                "durableTopicSubscriptions", "false"), "test URI");
        assertThat(own.stableSubscriptionName("anything")).isEqualTo("orders-bridge");
        assertThat(own.durableTopicSubscriptions()).isFalse();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> PeerProfile.fromOptions(
                        java.util.Map.of("durableSubscriptionName", "a b"), "URI 'tcp://x:1'"))
                .hasMessageContaining("URI 'tcp://x:1'").hasMessageContaining("durableSubscriptionName must be")
                .hasMessageContaining("'a b'");
    }
}
