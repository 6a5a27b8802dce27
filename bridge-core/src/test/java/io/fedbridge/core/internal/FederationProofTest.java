package io.fedbridge.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class FederationProofTest {

    private static final String SECRET = "a-federation-secret-of-32-chars!";
    private final Clock now = Clock.fixed(Instant.parse("2026-12-03T06:00:00Z"), ZoneOffset.UTC);

    @Test
    void shouldAcceptAFreshProofOnceAndNeverCarryTheSecret() {
        String proof = FederationProof.create(SECRET, now);
        assertThat(proof).startsWith("v1:").doesNotContain(SECRET);
        FederationProof.Verifier v = new FederationProof.Verifier(SECRET, now);
        assertThat(v.check(proof)).isNull();
        assertThat(v.check(proof)).contains("used before");
        assertThat(v.check(FederationProof.create(SECRET, now))).as("a new nonce").isNull();
    }

    @Test
    void shouldRefuseAnotherSecretsProofNamingTheFix() {
        String proof = FederationProof.create("another-secret-with-enough-chars", now);
        assertThat(new FederationProof.Verifier(SECRET, now).check(proof))
                .contains("does not match this broker's federationSecret").doesNotContain(SECRET);
    }

    @Test
    void shouldRefuseAProofFromTooFarInThePastOrFuture() {
        FederationProof.Verifier v = new FederationProof.Verifier(SECRET, now);
        Clock past = Clock.offset(now, Duration.ofMinutes(-3));
        Clock future = Clock.offset(now, Duration.ofMinutes(3));
        assertThat(v.check(FederationProof.create(SECRET, past))).contains("away from this broker's clock");
        assertThat(v.check(FederationProof.create(SECRET, future))).contains("away from this broker's clock");
        assertThat(v.check(FederationProof.create(SECRET, Clock.offset(now, Duration.ofSeconds(90))))).isNull();
    }

    @Test
    void shouldRefuseMalformedProofs() {
        FederationProof.Verifier v = new FederationProof.Verifier(SECRET, now);
        for (String bad : new String[] {null, "", "true", "v1:x", "v2:1:n:m", "v1:abc:n:m", "v1:1:n:!!!", "v1:1:n:m:extra"}) {
            assertThat(v.check(bad)).as(bad).isNotBlank();
        }
    }

    @Test
    void shouldRefuseAShortSecret() {
        assertThatThrownBy(() -> FederationProof.checkSecret("federationSecret", "short"))
                .hasMessage("federationSecret must be at least 16 characters, but was 5 characters long");
        assertThat(FederationProof.create(null, now)).isEqualTo(FederationProof.UNSIGNED);
    }
}
