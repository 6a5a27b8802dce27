package io.fedbridge.core.uri;

import java.net.URI;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A parsed fedbridge URI: either a <em>plain</em> URI such as {@code tcp://host:61613?k=v}, {@code vm://name} or
 * {@code ssl://[::1]:61614}, or a <em>composite</em> one such as
 * {@code failover:(tcp://a:61613,tcp://b:61613)?randomize=false}, whose components are URIs themselves and may
 * be composite again ({@code failover:(static:(tcp://a:1,tcp://b:2),tcp://c:3)}). This is the one place where
 * fedbridge parses URIs; the options are then bound to a config builder with {@link UriOptions}.
 *
 * <pre>{@code
 * CompositeUri uri = CompositeUri.parse("failover:(tcp://a:61613,tcp://b:61613)?randomize=false");
 * uri.scheme();                       // "failover"
 * uri.components().get(1).port();     // 61613
 * uri.options();                      // {randomize=false}
 * }</pre>
 *
 * <h2>Grammar</h2>
 * <ul>
 *   <li>composite: {@code scheme:(uri,uri,...)[?options]}; components are separated by commas at nesting
 *       depth 0 and may be surrounded by whitespace. ActiveMQ's spellings {@code scheme://(uri,...)} and
 *       {@code scheme:uri,uri} (no parentheses; a trailing query then belongs to the last component) are
 *       accepted too and render in the canonical form. Composites nest at most 32 levels deep.</li>
 *   <li>plain: {@code scheme://host[:port][/path][?options]}; IPv6 addresses in brackets
 *       ({@code tcp://[::1]:61613}). User info ({@code user:secret@host}) and fragments are rejected.</li>
 *   <li>options: {@code key=value} pairs joined by {@code '&'}, decoded like ActiveMQ does
 *       ({@code application/x-www-form-urlencoded}: {@code %XX} is UTF-8, {@code '+'} is a space, so a literal
 *       plus is written {@code %2B}). Every option needs a value ({@code key=} is the empty string); a key may
 *       appear once. Keys and values must be whole Unicode text (no unpaired surrogate characters).</li>
 *   <li>The scheme is case-insensitive and returned in lower case; nothing else is normalised.</li>
 * </ul>
 * Malformed input throws {@link IllegalArgumentException} whose message quotes the whole URI, names the bad
 * part and, where useful, its 0-based position, e.g.
 * {@code invalid URI 'failover:(tcp://a:1,,tcp://b:2)': empty component at position 20}.
 *
 * <h2>Secrets</h2>
 * The values of secret options ({@link #isSecretOption(String)}: {@code password}, {@code passcode},
 * {@code keyStorePassword}, {@code trustStorePassword}, {@code secret}, any key ending in {@code password},
 * {@code passcode} or {@code secret}, in any case) are shown as {@value #MASK} by {@link #toString()} and in every error message. Use
 * {@link #toUnmaskedString()} only where the URI is handed on, never where it is logged.
 *
 * <p>Instances are immutable and thread-safe. Two instances are equal when scheme, host, port, path,
 * components and options are equal (option order does not matter), so for any URI without secrets
 * {@code parse(uri.toString()).equals(uri)}, and for every URI {@code parse(uri.toUnmaskedString()).equals(uri)}.
 */
public final class CompositeUri {

    /** What {@link #toString()} and error messages show instead of a secret option's value. */
    public static final String MASK = UriParser.MASK;

    private final String scheme;
    private final List<CompositeUri> components;
    private final boolean composite;
    private final String host;
    private final int port;
    private final String path;
    private final Map<String, String> options;

    private CompositeUri(String scheme, List<CompositeUri> components, boolean composite, String host, int port,
                         String path, Map<String, String> options) {
        this.scheme = scheme;
        this.components = components;
        this.composite = composite;
        this.host = host;
        this.port = port;
        this.path = path;
        this.options = options;
    }

    static CompositeUri ofComposite(String scheme, List<CompositeUri> components, Map<String, String> options) {
        return new CompositeUri(scheme, List.copyOf(components), true, null, -1, null, freeze(options));
    }

    static CompositeUri ofPlain(String scheme, String host, int port, String path, Map<String, String> options) {
        return new CompositeUri(scheme, List.of(), false, host, port, path, freeze(options));
    }

    /**
     * Parses a plain or composite URI; leading and trailing whitespace is ignored.
     *
     * @throws IllegalArgumentException if {@code uri} is null, blank or malformed; the message names the
     *                                  problem and quotes the URI with secrets masked
     */
    public static CompositeUri parse(String uri) {
        return UriParser.parse(uri);
    }

    /**
     * Parses a {@link URI}; the same as {@code parse(uri.toString())}.
     *
     * @throws IllegalArgumentException if {@code uri} is null or not a valid fedbridge URI
     */
    public static CompositeUri of(URI uri) {
        if (uri == null) {
            throw new IllegalArgumentException("URI must not be null");
        }
        return parse(uri.toString());
    }

    /**
     * Whether the value of the option {@code key} is secret: true for keys ending in {@code password},
     * {@code passcode} or {@code secret}, ignoring case ({@code password}, {@code passcode}, {@code keyStorePassword},
     * {@code transport.trustStorePassword}, multicast discovery's {@code secret}, ...).
     */
    public static boolean isSecretOption(String key) {
        return UriParser.isSecret(Objects.requireNonNull(key, "key"));
    }

    /** The scheme in lower case, e.g. {@code "failover"}, {@code "tcp"}, {@code "vm"}. */
    public String scheme() {
        return scheme;
    }

    /** Whether this is a composite URI ({@code scheme:(uri,...)}); otherwise it is plain. */
    public boolean isComposite() {
        return composite;
    }

    /** The components of a composite URI in the order written; empty for a plain URI. */
    public List<CompositeUri> components() {
        return components;
    }

    /**
     * The host of a plain URI: a name ({@code vm://broker1} has host {@code "broker1"}), an IPv4 address, or an
     * IPv6 address without brackets ({@code tcp://[::1]:61613} has host {@code "::1"}).
     *
     * @throws IllegalStateException if this URI is composite
     */
    public String host() {
        requirePlain("host()");
        return host;
    }

    /**
     * The port of a plain URI, or -1 if none was given.
     *
     * @throws IllegalStateException if this URI is composite
     */
    public int port() {
        requirePlain("port()");
        return port;
    }

    /** Whether this plain URI has a port. */
    public boolean hasPort() {
        return port() >= 0;
    }

    /**
     * The path of a plain URI as written, including its leading {@code '/'}; {@code ""} if none.
     *
     * @throws IllegalStateException if this URI is composite
     */
    public String path() {
        requirePlain("path()");
        return path;
    }

    /**
     * The authority of a plain URI: {@code host[:port]}, with IPv6 addresses in brackets
     * ({@code "[::1]:61613"}).
     *
     * @throws IllegalStateException if this URI is composite
     */
    public String authority() {
        requirePlain("authority()");
        StringBuilder sb = new StringBuilder();
        appendAuthority(sb);
        return sb.toString();
    }

    /**
     * The decoded options of this URI (not of its components) in the order written; unmodifiable.
     * For {@code failover:(tcp://a:1?x=1)?y=2} that is {@code {y=2}}.
     */
    public Map<String, String> options() {
        return options;
    }

    /**
     * The options whose key starts with {@code prefix}, with the prefix removed, in the order written;
     * unmodifiable. {@code tcp://h:1?transport.tcpNoDelay=true} with prefix {@code "transport."} gives
     * {@code {tcpNoDelay=true}}. A key equal to the prefix is left out.
     */
    public Map<String, String> optionsWithPrefix(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        Map<String, String> result = new LinkedHashMap<>();
        options.forEach((key, value) -> {
            if (key.length() > prefix.length() && key.startsWith(prefix)) {
                result.put(key.substring(prefix.length()), value);
            }
        });
        return Collections.unmodifiableMap(result);
    }

    /**
     * A copy of this URI whose own options are exactly {@code newOptions} (in their iteration order);
     * components keep theirs.
     *
     * @throws IllegalArgumentException if a key is null or empty, or a value is null
     */
    public CompositeUri withOptions(Map<String, String> newOptions) {
        Objects.requireNonNull(newOptions, "options");
        newOptions.forEach((key, value) -> {
            if (key == null || key.isEmpty()) {
                throw new IllegalArgumentException("option key must not be null or empty, but was "
                        + (key == null ? "null" : "''"));
            }
            if (value == null) {
                throw new IllegalArgumentException("value of option '" + key + "' must not be null");
            }
        });
        return new CompositeUri(scheme, components, composite, host, port, path, freeze(newOptions));
    }

    /** A copy of this URI without its own options; components keep theirs. */
    public CompositeUri withoutOptions() {
        return options.isEmpty() ? this : withOptions(Map.of());
    }

    /**
     * The URI in canonical, parseable form with the values of {@linkplain #isSecretOption secret options}
     * replaced by {@value #MASK}. Safe to log.
     */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        render(sb, true, false);
        return sb.toString();
    }

    /**
     * The URI in canonical, parseable form including secrets. For handing the URI on (e.g. to another
     * process), never for logs or messages.
     */
    public String toUnmaskedString() {
        StringBuilder sb = new StringBuilder();
        render(sb, false, false);
        return sb.toString();
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CompositeUri)) {
            return false;
        }
        CompositeUri other = (CompositeUri) o;
        return composite == other.composite
                && port == other.port
                && scheme.equals(other.scheme)
                && components.equals(other.components)
                && Objects.equals(host, other.host)
                && Objects.equals(path, other.path)
                && options.equals(other.options);
    }

    @Override
    public int hashCode() {
        return Objects.hash(scheme, components, composite, host, port, path, options);
    }

    private void render(StringBuilder sb, boolean mask, boolean nested) {
        sb.append(scheme).append(':');
        if (composite) {
            sb.append('(');
            for (int i = 0; i < components.size(); i++) {
                if (i > 0) {
                    sb.append(',');
                }
                components.get(i).render(sb, mask, true);
            }
            sb.append(')');
        } else {
            sb.append("//");
            appendAuthority(sb);
            sb.append(path);
        }
        char separator = '?';
        for (Map.Entry<String, String> option : options.entrySet()) {
            sb.append(separator);
            separator = '&';
            UriParser.encode(sb, option.getKey(), nested);
            sb.append('=');
            if (mask && UriParser.isSecret(option.getKey())) {
                sb.append(MASK);
            } else {
                UriParser.encode(sb, option.getValue(), nested);
            }
        }
    }

    private void appendAuthority(StringBuilder sb) {
        int zone = host.indexOf('%');
        if (host.indexOf(':') >= 0) {
            sb.append('[').append(zone < 0 ? host : host.substring(0, zone) + "%25" + host.substring(zone + 1))
                    .append(']');
        } else {
            sb.append(host);
        }
        if (port >= 0) {
            sb.append(':').append(port);
        }
    }

    private void requirePlain(String accessor) {
        if (composite) {
            throw new IllegalStateException(accessor + " is undefined for the composite URI '" + this
                    + "'; use components()");
        }
    }

    private static Map<String, String> freeze(Map<String, String> options) {
        return options.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(options));
    }
}
