package io.fedbridge.failover.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.uri.CompositeUri;
import io.fedbridge.failover.FailoverClusterConfig;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LearnedBrokerFilterTest {

    private static final FailoverClusterConfig ANY = FailoverClusterConfig.ofDefaults();

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "tcp://b:1 | tcp://a:1 | ",
            "ssl://b:1 | tcp://a:1 | ",
            "ssl://b:1 | ssl://a:1 | ",
            "tcp://b:1 | ssl://a:1 | would downgrade from ssl to tcp",
            "vm://b    | tcp://a:1 | a vm:// broker is taken only from a vm:// connection",
            "vm://b    | ssl://a:1 | a vm:// broker is taken only from a vm:// connection",
            "vm://b    | vm://a    | ",
            "tcp://b:1 | vm://a    | would downgrade from vm to tcp",
            "ssl://b:1 | vm://a    | would downgrade from vm to ssl",
    })
    void shouldNeverAdoptABrokerOverAWeakerTransportThanTheAnnouncingConnection(String learned, String via, String reason) {
        assertThat(LearnedBrokerFilter.reason(CompositeUri.parse(learned), CompositeUri.parse(via), ANY)).isEqualTo(reason);
    }

    @Test
    void shouldKeepConfiguredBrokersAndCountEveryIgnoredAnnouncement() {
        FailoverClusterConfig allowed = new FailoverClusterConfig(true, true, List.of("*.prod:*"), false);
        LearnedBrokerFilter filter = new LearnedBrokerFilter(allowed, "test");
        BrokerList brokers = new BrokerList(List.of(CompositeUri.parse("tcp://configured:1")), List.of(), false, new Random(1));
        List<CompositeUri> announced = List.of(CompositeUri.parse("tcp://configured:1"), CompositeUri.parse("tcp://x.prod:2"),
                CompositeUri.parse("tcp://x.test:3"));

        assertThat(filter.accept(announced, CompositeUri.parse("tcp://configured:1"), brokers)).extracting(CompositeUri::toString)
                .containsExactly("tcp://configured:1", "tcp://x.prod:2");
        filter.accept(announced, CompositeUri.parse("tcp://configured:1"), brokers);
        assertThat(filter.ignored()).isEqualTo(2);
        assertThat(LearnedBrokerFilter.reason(CompositeUri.parse("tcp://x.test:3"), CompositeUri.parse("tcp://configured:1"), allowed))
                .isEqualTo("not matched by updateURIsAllowed=*.prod:*");
    }
}
