package io.fedbridge.broker.internal;

import io.fedbridge.broker.security.Identity;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * Whose a client's own {@code fedbridge-id} is. A broker keeps such an id as {@code <scope>:<id>}, so it deduplicates
 * the resends of the producer that sent it and never suppresses another producer's message, whatever id that one
 * chose. The scope is a hash, so the ids consumers see do not reveal what it is made of:
 * <ul>
 *   <li>with a {@code fedbridge-producer-secret} on CONNECT (the failover client sends one): the user and the secret.
 *       The same on every broker of the federation, so a resend after a failover is dropped wherever the first copy went;
 *       nobody without the secret can make an id in this scope;</li>
 *   <li>else, for a logged-in user: the user (the same user's connections share it);</li>
 *   <li>else (anonymous, no secret): the connection.</li>
 * </ul>
 * Ids that federation links forward are already scoped (or minted by a broker) and are kept as they are.
 */
final class ProducerIds {

    /** A shorter producer secret is refused: it could be guessed from the scope in the ids. */
    static final int MIN_SECRET_LENGTH = 16;
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private ProducerIds() {
    }

    /** {@code p} and 22 base64url characters (132 bits) of SHA-256 over what the scope is made of. */
    static String scope(Identity identity, String secret, String brokerId, String sessionId) {
        String basis = secret != null ? "secret\n" + identity.name() + "\n" + secret
                : !identity.anonymous() ? "user\n" + identity.name()
                : "connection\n" + brokerId + "\n" + sessionId;
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(basis.getBytes(StandardCharsets.UTF_8));
            return "p" + B64.encodeToString(hash).substring(0, 22);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }

    /** The id as the broker keeps it; the scope has a fixed length, so no two (scope, id) pairs give one string. */
    static String scoped(String scope, String id) {
        return scope + ":" + id;
    }

    /**
     * The client-id a durable subscription is kept under: a logged-in user's carry the user ({@code alice/app-1}), so
     * that another user with the same client-id can neither attach to it nor remove it.
     */
    static String durableClientId(Identity identity, String clientId) {
        return identity.anonymous() ? clientId : identity.name() + "/" + clientId;
    }
}
