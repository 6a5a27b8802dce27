package io.fedbridge.broker.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.core.AckMode;
import io.fedbridge.core.StompHeaders;
import org.junit.jupiter.api.Test;

class MessageGroupsTest {

    private final MessageGroups groups = new MessageGroups();
    private final ServerConsumer first = consumer("1");
    private final ServerConsumer second = consumer("2");

    private static ServerConsumer consumer(String id) {
        return new ServerConsumer(null, 1, id, "/queue/q", AckMode.CLIENT, null, null, 10, 0, null);
    }

    private static BrokerMessage message(String group, String seq) {
        StompHeaders h = new StompHeaders(2);
        h.add(MessageGroups.GROUP_ID, group);
        if (seq != null) {
            h.add(MessageGroups.GROUP_SEQ, seq);
        }
        return new BrokerMessage(1, "m", "/queue/q", h, new byte[0]);
    }

    @Test
    void shouldKeepAGroupWithTheConsumerThatTookItsFirstMessage() {
        groups.took("g", first, message("g", null));
        groups.took("g", first, message("g", "2"));

        assertThat(groups.owner("g")).isSameAs(first);
        assertThat(groups.size()).isEqualTo(1);
        assertThat(groups.ownedBy(first)).isEqualTo(1);
        assertThat(groups.assignments()).isEqualTo(1);
    }

    @Test
    void shouldCloseAGroupOnSequenceMinusOne() {
        BrokerMessage last = message("g", "-1");
        groups.took("g", first, message("g", null));
        groups.took("g", first, last);

        assertThat(last.groupId).isEqualTo("g");
        assertThat(last.closesGroup).isTrue();
        assertThat(groups.owner("g")).isNull();
        assertThat(groups.ownedBy(first)).isZero();
    }

    @Test
    void shouldFreeTheGroupsOfAConsumerThatLeftSoTheyMoveOnce() {
        groups.took("g", first, message("g", null));
        groups.took("h", first, message("h", null));
        groups.removed(first);

        assertThat(groups.owner("g")).isNull();
        groups.took("g", second, message("g", null));
        assertThat(groups.owner("g")).isSameAs(second);
        assertThat(groups.size()).isEqualTo(1);
        assertThat(groups.assignments()).isEqualTo(3);
    }
}
