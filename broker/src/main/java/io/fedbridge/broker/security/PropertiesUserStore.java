package io.fedbridge.broker.security;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.security.auth.x500.X500Principal;

/**
 * An {@link Authenticator} over a users file, with passwords stored as salted PBKDF2 hashes, never in clear.
 *
 * <pre>
 * # fedbridge users: NAME = CREDENTIAL [; groups=G1,G2] [; dn=CERTIFICATE SUBJECT]
 * alice    = pbkdf2:600000:q0Jc1b5XSk2tV6oR3m0hVQ==:Vb8i...Q=; groups=apps
 * bridge-a = pbkdf2:600000:8vA1...==:c2h9...M=; groups=bridges
 * broker-b = -; groups=bridges; dn=CN=broker-b,OU=fedbridge,O=example
 * </pre>
 * <ul>
 *   <li>NAME: 1-128 letters, digits, '.', '_', '@' or '-'; each user once.</li>
 *   <li>CREDENTIAL: {@code pbkdf2:<iterations>:<salt>:<hash>} where salt and hash are standard Base64 and
 *       hash = PBKDF2WithHmacSHA256(password as UTF-16 chars, salt, iterations, 8 x hash length bits);
 *       iterations at least {@value #MIN_ITERATIONS}. {@link #hash(char[])} makes one (16-byte random salt,
 *       32-byte hash, {@value #DEFAULT_ITERATIONS} iterations), and so does
 *       {@code java -cp fedbridge-broker.jar io.fedbridge.broker.security.PropertiesUserStore NAME}, which
 *       reads the password from the console and prints the line. {@code -} means no password: the user can
 *       only log in with a client certificate.</li>
 *   <li>{@code groups}: comma-separated group names.</li>
 *   <li>{@code dn}: the subject of the user's client certificate (compared as X.500 names, so spacing and
 *       case of attribute types do not matter); must be the last field. A connection that presents a verified
 *       certificate with this subject and no {@code login} header is this user.</li>
 * </ul>
 * A {@code login} header always takes precedence over a certificate. A wrong password and an unknown user
 * give the same message and take the same time (an unknown user is hashed against a dummy entry).
 *
 * <p>Immutable and thread-safe; verifying costs one PBKDF2 run (about 0.1 s at the default iterations), which
 * is why the broker calls authenticators off its I/O threads.
 */
public final class PropertiesUserStore implements Authenticator {

    /** Iterations {@link #hash(char[])} uses: OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. */
    public static final int DEFAULT_ITERATIONS = 600_000;
    /** The fewest iterations a users file may ask for. */
    public static final int MIN_ITERATIONS = 10_000;
    private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
    private static final String PREFIX = "pbkdf2:";
    private static final String CERTIFICATE_ONLY = "-";
    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9._@-]{1,128}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private record User(String name, Hash hash, Set<String> groups, X500Principal dn) {
    }

    private record Hash(int iterations, byte[] salt, byte[] hash) {
        boolean matches(char[] password) {
            return MessageDigest.isEqual(pbkdf2(password, salt, iterations, hash.length), hash);
        }
    }

    private final String source;
    private final Map<String, User> users;
    private final Map<X500Principal, User> byDn;
    private final Hash dummy;

    private PropertiesUserStore(String source, Map<String, User> users) {
        this.source = source;
        this.users = Collections.unmodifiableMap(users);
        Map<X500Principal, User> dns = new LinkedHashMap<>();
        int maxIterations = MIN_ITERATIONS;
        for (User u : users.values()) {
            if (u.dn() != null) {
                dns.put(u.dn(), u);
            }
            if (u.hash() != null) {
                maxIterations = Math.max(maxIterations, u.hash().iterations());
            }
        }
        this.byDn = Collections.unmodifiableMap(dns);
        this.dummy = new Hash(maxIterations, new byte[16], new byte[32]);
    }

    /** Reads a users file (UTF-8). Errors name the file and line, never a hash or password. */
    public static PropertiesUserStore load(Path file) {
        try {
            return parse(Files.readString(file, StandardCharsets.UTF_8), file.toString());
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read users file " + file + ": " + e, e);
        }
    }

    /** Parses the text of a users file; {@code source} names it in error messages. */
    public static PropertiesUserStore parse(String text, String source) {
        Map<String, User> users = new LinkedHashMap<>();
        Set<X500Principal> dns = new LinkedHashSet<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith("!")) {
                continue;
            }
            String where = source + ":" + (i + 1) + ": ";
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException(where + "a user line is 'NAME = CREDENTIAL[; groups=...][; dn=...]'");
            }
            String name = line.substring(0, eq).strip();
            if (!USER_NAME.matcher(name).matches()) {
                throw new IllegalArgumentException(where + "user name must be 1-128 letters, digits, '.', '_', '@' or '-', but was '"
                        + name + "'");
            }
            if (users.containsKey(name)) {
                throw new IllegalArgumentException(where + "user '" + name + "' appears twice");
            }
            User u = parseUser(name, line.substring(eq + 1), where);
            if (u.dn() != null && !dns.add(u.dn())) {
                throw new IllegalArgumentException(where + "user '" + name + "' has the same dn as another user");
            }
            users.put(name, u);
        }
        return new PropertiesUserStore(source, users);
    }

    private static User parseUser(String name, String value, String where) {
        String rest = value;
        String dn = null;
        int dnAt = indexOfField(rest, "dn");
        if (dnAt >= 0) {
            dn = rest.substring(rest.indexOf('=', dnAt) + 1).strip();
            rest = rest.substring(0, dnAt);
        }
        String[] fields = rest.split(";");
        String credential = fields[0].strip();
        Hash hash;
        if (credential.equals(CERTIFICATE_ONLY)) {
            hash = null;
        } else {
            try {
                hash = parseHash(credential);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + "user '" + name + "': " + e.getMessage(), e);
            }
        }
        Set<String> groups = new LinkedHashSet<>();
        for (int f = 1; f < fields.length; f++) {
            String field = fields[f].strip();
            if (field.isEmpty()) {
                continue;
            }
            int eq = field.indexOf('=');
            String key = eq < 0 ? field : field.substring(0, eq).strip();
            if (!key.equals("groups")) {
                throw new IllegalArgumentException(where + "user '" + name + "': unknown field '" + key
                        + "'; fields are groups and dn");
            }
            for (String g : field.substring(eq + 1).split(",")) {
                if (!g.isBlank()) {
                    try {
                        Identity.checkName("group", g.strip());
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(where + "user '" + name + "': " + e.getMessage(), e);
                    }
                    groups.add(g.strip());
                }
            }
        }
        X500Principal principal = null;
        if (dn != null) {
            try {
                principal = new X500Principal(dn);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(where + "user '" + name + "': dn '" + dn + "' is not an X.500 name: "
                        + e.getMessage(), e);
            }
        }
        if (hash == null && principal == null) {
            throw new IllegalArgumentException(where + "user '" + name + "' has neither a password hash nor a dn, so can never log in");
        }
        return new User(name, hash, Set.copyOf(groups), principal);
    }

    /** Where a {@code ; key=} field starts, or -1. */
    private static int indexOfField(String s, String key) {
        int from = 0;
        while (true) {
            int semi = s.indexOf(';', from);
            if (semi < 0) {
                return -1;
            }
            String after = s.substring(semi + 1).stripLeading();
            if (after.startsWith(key) && after.substring(key.length()).stripLeading().startsWith("=")) {
                return semi;
            }
            from = semi + 1;
        }
    }

    private static Hash parseHash(String credential) {
        String[] parts = credential.split(":", -1);
        if (!credential.startsWith(PREFIX) || parts.length != 4) {
            throw new IllegalArgumentException("credential must be 'pbkdf2:<iterations>:<saltBase64>:<hashBase64>' or '-'");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("iterations must be an integer, but was '" + parts[1] + "'", e);
        }
        if (iterations < MIN_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be >= " + MIN_ITERATIONS + ", but was " + iterations);
        }
        byte[] salt;
        byte[] hash;
        try {
            salt = Base64.getDecoder().decode(parts[2]);
            hash = Base64.getDecoder().decode(parts[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("salt and hash must be Base64", e);
        }
        if (salt.length < 8 || hash.length < 16) {
            throw new IllegalArgumentException("salt must be at least 8 bytes and hash at least 16 bytes");
        }
        return new Hash(iterations, salt, hash);
    }

    /** A credential for the users file: {@code pbkdf2:600000:<salt>:<hash>} with a fresh random salt. */
    public static String hash(char[] password) {
        return hash(password, DEFAULT_ITERATIONS);
    }

    /** As {@link #hash(char[])} with the given number of iterations (at least {@value #MIN_ITERATIONS}). */
    public static String hash(char[] password, int iterations) {
        if (iterations < MIN_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be >= " + MIN_ITERATIONS + ", but was " + iterations);
        }
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        byte[] hash = pbkdf2(password, salt, iterations, 32);
        Base64.Encoder b64 = Base64.getEncoder();
        return PREFIX + iterations + ":" + b64.encodeToString(salt) + ":" + b64.encodeToString(hash);
    }

    private static byte[] pbkdf2(char[] password, byte[] salt, int iterations, int bytes) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bytes * 8);
        try {
            return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available", e);
        } finally {
            spec.clearPassword();
        }
    }

    /** The user names in the file, in file order. */
    public Set<String> users() {
        return users.keySet();
    }

    @Override
    public Identity authenticate(String login, String passcode, X509Certificate[] peerCertificates)
            throws AuthenticationException {
        if (login != null) {
            User u = users.get(login);
            char[] pw = passcode == null ? new char[0] : passcode.toCharArray();
            try {
                boolean ok;
                if (u != null && u.hash() != null) {
                    ok = u.hash().matches(pw);
                } else {
                    dummy.matches(pw); // as slow as a real check, so timing does not tell unknown users apart
                    ok = false;
                }
                if (!ok) {
                    throw AuthenticationException.loginFailed(login);
                }
            } finally {
                Arrays.fill(pw, '\0');
            }
            return Identity.of(u.name(), u.groups());
        }
        if (peerCertificates != null && peerCertificates.length > 0) {
            User u = byDn.get(peerCertificates[0].getSubjectX500Principal());
            if (u != null) {
                return Identity.of(u.name(), u.groups());
            }
        }
        return null;
    }

    @Override
    public String toString() {
        return "PropertiesUserStore[" + source + ", " + users.size() + " users]";
    }

    /**
     * Prints a users-file line for {@code args[0]} with the password read from the console (or, without one,
     * from the first line of standard input); {@code args[1]}, optional, is a comma-separated group list.
     */
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 2) {
            System.err.println("usage: PropertiesUserStore NAME [GROUP,GROUP...]   (the password is read from the console)");
            System.exit(2);
        }
        Identity.checkName("user", args[0]);
        char[] password;
        Console console = System.console();
        if (console != null) {
            password = console.readPassword("password for %s: ", args[0]);
        } else {
            String line = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            password = line == null ? new char[0] : line.toCharArray();
        }
        try {
            System.out.println(args[0] + " = " + hash(password) + (args.length == 2 ? "; groups=" + args[1] : ""));
        } finally {
            Arrays.fill(password, '\0');
        }
    }
}
