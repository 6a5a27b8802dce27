package io.fedbridge.discovery.multicast;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The secret a multicast discovery group shares: every announcement carries an HMAC-SHA256 made with it, and
 * announcements without a valid one are ignored. Give every broker of the group the same secret (URI option
 * {@code secret=} or {@code secretFile=}).
 *
 * <pre>{@code
 * MulticastSecret s = MulticastSecret.of("k8Jq2...at least 16 characters");
 * MulticastSecret f = MulticastSecret.fromFile(Path.of("/etc/fedbridge/multicast.secret")); // trimmed
 * }</pre>
 *
 * <p>The secret never appears in {@link #toString()} or in an exception message. Immutable and thread-safe.
 */
public final class MulticastSecret {

    /** The shortest secret accepted, in characters. */
    public static final int MIN_LENGTH = 16;

    private static final String ALGORITHM = "HmacSHA256";
    private static final String SHOWN = "*****";

    private final byte[] key;

    private MulticastSecret(byte[] key) {
        this.key = key;
    }

    /**
     * The secret {@code secret}, as UTF-8, used as given (not trimmed).
     *
     * @throws IllegalArgumentException if it is null or shorter than {@value #MIN_LENGTH} characters
     */
    public static MulticastSecret of(String secret) {
        if (secret == null || secret.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("secret must be at least " + MIN_LENGTH + " characters, but was "
                    + (secret == null ? "null" : secret.length() + " characters"));
        }
        return new MulticastSecret(secret.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The secret held in {@code file} (UTF-8), without leading and trailing whitespace, so that a trailing newline
     * does not count.
     *
     * @throws IllegalArgumentException if the file cannot be read or holds fewer than {@value #MIN_LENGTH} characters
     */
    public static MulticastSecret fromFile(Path file) {
        Objects.requireNonNull(file, "secretFile");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            // The exception's own message names the file and the reason, never the content.
            throw new IllegalArgumentException("secretFile must be a readable UTF-8 file, but reading " + file
                    + " failed: " + e, e);
        }
        if (text.length() < MIN_LENGTH) {
            throw new IllegalArgumentException("secretFile must hold a secret of at least " + MIN_LENGTH
                    + " characters, but " + file + " holds " + text.length() + (text.isEmpty() ? " (it is empty)" : ""));
        }
        return of(text);
    }

    /** A new HMAC-SHA256 keyed with this secret; a {@link Mac} is not thread-safe, so each user takes its own. */
    public Mac newMac() {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(new SecretKeySpec(key, ALGORITHM));
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is part of every Java runtime", e);
        }
    }

    /** Equal secrets, compared in constant time. */
    @Override
    public boolean equals(Object o) {
        return o instanceof MulticastSecret other && MessageDigest.isEqual(key, other.key);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(key);
    }

    /** Never the secret. */
    @Override
    public String toString() {
        return SHOWN;
    }
}
