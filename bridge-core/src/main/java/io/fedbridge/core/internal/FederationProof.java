package io.fedbridge.core.internal;

import io.fedbridge.core.FederationHeaders;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The value of {@link FederationHeaders#FEDERATE} on a bridge's or HA link's CONNECT: proof that the connecting side
 * knows the federation secret, without sending it. {@code v1:<epoch-ms>:<nonce>:<mac>}, where mac is
 * HMAC-SHA256(secret, {@code "fedbridge-federate:v1:<epoch-ms>:<nonce>"}), base64url. A {@link Verifier} accepts a proof
 * once, within {@link #MAX_SKEW} of its clock: a recorded CONNECT cannot be replayed later. Without a secret the value
 * is {@link #UNSIGNED}, which a broker accepts only where it trusts the network (see the broker's Security docs).
 */
public final class FederationProof {

    /** The value a bridge without a federation secret sends. */
    public static final String UNSIGNED = "true";
    /** How far a proof's time may be from the verifier's, either way. */
    public static final Duration MAX_SKEW = Duration.ofMinutes(2);
    /** Secrets shorter than this are refused: a short one is guessed offline from one recorded proof. */
    public static final int MIN_SECRET_LENGTH = 16;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private FederationProof() {
    }

    /** Checks a configured secret: null is fine (none), else it must be long enough. */
    public static String checkSecret(String name, String secret) {
        if (secret != null && secret.length() < MIN_SECRET_LENGTH) {
            throw new IllegalArgumentException(name + " must be at least " + MIN_SECRET_LENGTH + " characters, but was "
                    + secret.length() + " characters long");
        }
        return secret;
    }

    /** A fresh proof for {@code secret}, or {@link #UNSIGNED} for null. */
    public static String create(String secret, Clock clock) {
        if (secret == null) {
            return UNSIGNED;
        }
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(nonce);
        String signed = "v1:" + clock.millis() + ":" + B64.encodeToString(nonce);
        return signed + ":" + B64.encodeToString(mac(secret, signed));
    }

    private static byte[] mac(String secret, String signed) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(("fedbridge-federate:" + signed).getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    /** Checks proofs against one secret; remembers the nonces it accepted within the skew window. Thread-safe. */
    public static final class Verifier {
        private static final int MAX_REMEMBERED = 100_000;
        private final String secret;
        private final Clock clock;
        /** Accepted nonce -> its proof's time, oldest first. */
        private final LinkedHashMap<String, Long> seen = new LinkedHashMap<>();

        public Verifier(String secret, Clock clock) {
            this.secret = java.util.Objects.requireNonNull(secret, "secret");
            this.clock = clock;
        }

        /** Null if {@code proof} is valid and new; else why not (for the ERROR frame; never contains the secret). */
        public String check(String proof) {
            String[] p = proof == null ? new String[0] : proof.split(":", -1);
            if (p.length != 4 || !p[0].equals("v1")) {
                return "the federation proof is not of the form v1:<time>:<nonce>:<mac> (a bridge without "
                        + "federationSecret sends 'true'; this broker has a federationSecret)";
            }
            long at;
            try {
                at = Long.parseLong(p[1]);
            } catch (NumberFormatException e) {
                return "the federation proof's time is not a number";
            }
            long now = clock.millis();
            if (Math.abs(now - at) > MAX_SKEW.toMillis()) {
                return "the federation proof is " + Math.abs(now - at) / 1000 + " s away from this broker's clock (at most "
                        + MAX_SKEW.toSeconds() + " s): check both clocks";
            }
            byte[] given;
            try {
                given = Base64.getUrlDecoder().decode(p[3]);
            } catch (IllegalArgumentException e) {
                return "the federation proof's mac is not base64url";
            }
            if (!MessageDigest.isEqual(given, mac(secret, p[0] + ":" + p[1] + ":" + p[2]))) {
                return "the federation proof does not match this broker's federationSecret (set the same federationSecret "
                        + "on both brokers)";
            }
            synchronized (seen) {
                var it = seen.entrySet().iterator();
                while (it.hasNext()) {
                    Map.Entry<String, Long> e = it.next();
                    if (seen.size() < MAX_REMEMBERED && Math.abs(now - e.getValue()) <= MAX_SKEW.toMillis()) {
                        break;
                    }
                    it.remove();
                }
                if (seen.putIfAbsent(p[2], at) != null) {
                    return "the federation proof was used before (a replayed CONNECT)";
                }
            }
            return null;
        }
    }
}
