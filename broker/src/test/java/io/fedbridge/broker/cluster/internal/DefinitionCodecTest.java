package io.fedbridge.broker.cluster.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fedbridge.broker.DestinationPolicy;
import io.fedbridge.broker.LimitBehavior;
import io.fedbridge.broker.cluster.DefinitionVersion;
import io.fedbridge.broker.cluster.DestinationDefinition;
import io.fedbridge.core.FederationHeaders;
import io.fedbridge.core.StompHeaders;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DefinitionCodecTest {

    private static final DefinitionVersion V = new DefinitionVersion(3, "broker-b");
    private static final DestinationPolicy POLICY = DestinationPolicy.builder("/queue/orders").maxNumMsgs(10).maxTotalMsgBytes(4096)
            .maxBytesPerMsg(512).maxNumProducers(2).maxNumActiveConsumers(1).maxNumBackupConsumers(3).consumerFlowLimit(5)
            .limitBehavior(LimitBehavior.REMOVE_OLDEST).useDMQ(false).maxRedeliveries(0).localDeliveryPreferred(true)
            .isLocalOnly(true).build();

    @Test
    void shouldCarryEveryPolicyKeyOnTheWireAndInTheStore() {
        DestinationDefinition d = new DestinationDefinition("/queue/orders", POLICY, V, false);

        assertThat(DefinitionCodec.fromWire(DefinitionCodec.headers(d), DefinitionCodec.body(d))).isEqualTo(d);
        assertThat(DefinitionCodec.fromStored("/queue/orders", DefinitionCodec.toStored(d))).isEqualTo(d);
        assertThat(DefinitionCodec.policyMap(POLICY).keySet()).containsExactlyElementsOf(DefinitionCodec.POLICY_KEYS);
        assertThat(DefinitionCodec.POLICY_KEYS).containsExactlyElementsOf(Arrays.stream(DestinationPolicy.class.getRecordComponents())
                .map(c -> c.getName()).filter(n -> !n.equals("pattern"))
                // A queue replica's source is this broker's own business (docs/ha.md), never the federation's.
                .filter(n -> !n.equals("replicateFrom")).toList());
    }

    @Test
    void shouldCarryATombstone() {
        DestinationDefinition d = new DestinationDefinition("/queue/orders", null, V, true);

        assertThat(DefinitionCodec.headers(d).get(FederationHeaders.DEFINITION_DELETED)).isEqualTo("true");
        assertThat(DefinitionCodec.fromWire(DefinitionCodec.headers(d), DefinitionCodec.body(d))).isEqualTo(d);
        assertThat(DefinitionCodec.fromStored("/queue/orders", DefinitionCodec.toStored(d))).isEqualTo(d);
    }

    @Test
    void shouldIgnoreKeysOfALaterVersionOnTheWireButRefuseThemFromAnAdmin() {
        StompHeaders h = StompHeaders.of(FederationHeaders.DEFINITION, "/queue/x", FederationHeaders.DEFINITION_VERSION, V.toString());
        DestinationDefinition d = DefinitionCodec.fromWire(h, "maxNumMsgs=7\nfutureKey=1\n".getBytes(StandardCharsets.UTF_8));

        assertThat(d.policy().maxNumMsgs()).isEqualTo(7);
        assertThatThrownBy(() -> DefinitionCodec.strictPolicy("/queue/x", Map.of("futureKey", "1")))
                .hasMessageStartingWith("unknown policy key 'futureKey'; valid keys are [maxNumMsgs, ");
        assertThatThrownBy(() -> DefinitionCodec.fromWire(h, "maxNumMsgs=lots\n".getBytes(StandardCharsets.UTF_8)))
                .hasMessageContaining("definition of /queue/x has a bad policy value");
        assertThatThrownBy(() -> DefinitionCodec.fromWire(StompHeaders.of(FederationHeaders.DEFINITION, "/queue/x"), new byte[0]))
                .hasMessageContaining("version must be COUNTER:BROKER-ID");
    }
}
