package io.fedbridge.broker.security.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.fedbridge.broker.security.AuthorizationRules;
import io.fedbridge.broker.security.Identity;
import io.fedbridge.broker.security.SecurityConfig;
import java.net.InetSocketAddress;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Who counts as a federation link, decided without any traffic (addresses are only compared, never used). */
class SecurityGuardFederationTest {

    private static final InetSocketAddress REMOTE = new InetSocketAddress("192.0.2.10", 40000);
    private static final InetSocketAddress LOOPBACK = new InetSocketAddress("127.0.0.1", 40000);

    @Test
    void shouldTrustAnUnsignedAnnouncementOnlyFromThisHostWithoutSecretOrRules() {
        try (SecurityGuard open = new SecurityGuard(SecurityConfig.ofDefaults(), "A")) {
            assertThat(open.checkFederationLink("true", LOOPBACK)).isNull();
            assertThat(open.checkFederationLink("true", new io.netty.channel.local.LocalAddress("vm"))).isNull();
            assertThat(open.checkFederationLink("true", REMOTE))
                    .contains("federation link from 192.0.2.10 refused: broker A has no federationSecret")
                    .contains("set the same federationSecret on both brokers");
        }
    }

    @Test
    void shouldLeaveItToTheFederateRightWithRulesAndNoSecret() {
        AuthorizationRules rules = AuthorizationRules.parse("/queue/> read,write,federate user:bridge\n/queue/> read,write user:alice\n", "r");
        try (SecurityGuard guard = new SecurityGuard(SecurityConfig.builder().authorizer(rules).build(), "A")) {
            assertThat(guard.checkFederationLink("true", REMOTE)).isNull();
            Identity bridge = Identity.of("bridge", Set.of());
            Identity alice = Identity.of("alice", Set.of());
            assertThat(guard.mayFederate(bridge, true, "/queue/x")).isTrue();
            assertThat(guard.mayFederate(bridge, false, "/queue/x")).as("not announced").isFalse();
            assertThat(guard.mayFederate(alice, true, "/queue/x")).isFalse();
        }
    }

    @Test
    void shouldRequireAProofOfTheSecretFromAnywhereWhenOneIsSet() {
        String secret = "0123456789abcdef-secret";
        try (SecurityGuard guard = new SecurityGuard(SecurityConfig.builder().federationSecret(secret).build(), "A")) {
            assertThat(guard.checkFederationLink("true", LOOPBACK)).contains("federation link refused");
            assertThat(guard.checkFederationLink(io.fedbridge.core.internal.FederationProof.create(secret,
                    java.time.Clock.systemUTC()), REMOTE)).isNull();
        }
    }
}
