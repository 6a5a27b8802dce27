package io.fedbridge.broker.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Set;
import org.junit.jupiter.api.Test;

class AuthorizationRulesTest {

    private static final Identity ALICE = Identity.of("alice", Set.of("apps"));
    private static final Identity AUDITOR = Identity.of("auditor", Set.of("audit"));
    private static final Identity ADMIN = Identity.of("root", Set.of("admins"));

    private static final AuthorizationRules RULES = AuthorizationRules.parse("""
            # pattern              operations       principals
            /queue/orders.>        read,write       group:apps, user:auditor
            /queue/orders.audit    read             user:auditor
            /topic/prices.*        read             *
            /topic/prices.eur      read             group:apps
            >                      all              group:admins
            """, "rules");

    @Test
    void shouldLetTheMostSpecificPatternForTheOperationDecide() {
        assertThat(RULES.isAllowed(ALICE, Operation.WRITE, "/queue/orders.eu")).isTrue();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/queue/orders.eu")).isTrue();
        assertThat(RULES.isAllowed(ALICE, Operation.WRITE, "/queue/orders.audit")).as("write: /queue/orders.> decides").isTrue();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/queue/orders.audit")).as("read: the exact entry decides").isFalse();
        assertThat(RULES.isAllowed(AUDITOR, Operation.READ, "/queue/orders.audit")).isTrue();
        assertThat(RULES.isAllowed(ADMIN, Operation.READ, "/queue/orders.audit"))
                .as("'>' is less specific than the exact entry").isFalse();
        assertThat(RULES.isAllowed(ADMIN, Operation.ADMIN, "/topic/fedbridge.advisory.consumer")).isTrue();
    }

    @Test
    void shouldDenyByDefault() {
        assertThat(RULES.isAllowed(ALICE, Operation.WRITE, "/queue/other")).isFalse();
        assertThat(RULES.isAllowed(ALICE, Operation.ADMIN, "/queue/orders.eu")).isFalse();
        assertThat(AuthorizationRules.builder().build().isAllowed(ADMIN, Operation.READ, "/queue/a")).isFalse();
        assertThat(RULES.isAllowed(ADMIN, Operation.READ, "not-a-destination")).isFalse();
    }

    @Test
    void shouldAllowAWildcardOnlyIfEveryDestinationItCoversIsAllowed() {
        Identity bob = Identity.of("bob", Set.of());
        assertThat(RULES.isAllowed(bob, Operation.READ, "/topic/prices.usd")).isTrue();
        assertThat(RULES.isAllowed(bob, Operation.READ, "/topic/prices.eur")).as("the exact entry names apps only").isFalse();
        assertThat(RULES.isAllowed(bob, Operation.READ, "/topic/prices.*"))
                .as("covers /topic/prices.eur, which bob may not read").isFalse();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/topic/prices.*")).isTrue();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/topic/prices.>")).as("deeper names: no entry").isFalse();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/queue/orders.>"))
                .as("covers /queue/orders.audit, which only the auditor may read").isFalse();
        assertThat(RULES.isAllowed(AUDITOR, Operation.READ, "/queue/orders.>")).isTrue();
        assertThat(RULES.isAllowed(ALICE, Operation.READ, "/queue/>")).isFalse();
        assertThat(RULES.isAllowed(ADMIN, Operation.READ, "/topic/other.>")).isTrue();
        assertThat(RULES.isAllowed(ADMIN, Operation.READ, "/topic/>"))
                .as("covers /topic/prices.eur, whose more specific entry names apps only").isFalse();
    }

    @Test
    void shouldGrantAnonymousConnectionsOnlyWhatNamesThem() {
        AuthorizationRules rules = AuthorizationRules.builder()
                .allow("/topic/public.>", Operation.READ, "group:anonymous")
                .allow("/topic/>", Operation.READ, "group:apps").build();
        assertThat(rules.isAllowed(Identity.ofAnonymous(), Operation.READ, "/topic/public.news")).isTrue();
        assertThat(rules.isAllowed(Identity.ofAnonymous(), Operation.READ, "/topic/internal")).isFalse();
        assertThat(rules.isAllowed(ALICE, Operation.READ, "/topic/public.news"))
                .as("the more specific entry names anonymous only").isFalse();
    }

    @Test
    void shouldRejectMalformedEntriesNamingTheLine() {
        assertThatThrownBy(() -> AuthorizationRules.parse("/queue/a read\n", "r"))
                .hasMessageContaining("r:1: an entry is 'pattern operations principals'");
        assertThatThrownBy(() -> AuthorizationRules.parse("\n/queue/a delete user:x\n", "r"))
                .hasMessage("r:2: operation must be read, write, admin or federate, but was 'delete'");
        assertThatThrownBy(() -> AuthorizationRules.parse("queue/a read user:x\n", "r"))
                .hasMessageContaining("r:1: pattern must be '>' or start with one of");
        assertThatThrownBy(() -> AuthorizationRules.parse("/queue/a.>.b read user:x\n", "r"))
                .hasMessageContaining("may have '>' only as its last segment");
        assertThatThrownBy(() -> AuthorizationRules.parse("/queue/a read alice\n", "r"))
                .hasMessageContaining("principal must be user:NAME, group:NAME or *, but was 'alice'");
    }
}
