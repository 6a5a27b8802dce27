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
}
