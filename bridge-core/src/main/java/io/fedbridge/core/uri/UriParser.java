package io.fedbridge.core.uri;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The grammar behind {@link CompositeUri#parse(String)}: a recursive-descent parser that works on index
 * ranges of the original input, so every error can name a 0-based position in the string the user wrote.
 * Also holds the percent codec and the secret masking shared by {@link CompositeUri} and
 * {@link UriOptions}.
 */
final class UriParser {

    static final String MASK = "*****";
    /** How deep composites may nest; real URIs use two or three levels, and the parser recurses per level. */
    static final int MAX_NESTING = 32;

    private static final Pattern USER_INFO = Pattern.compile("//[^/?#\\s(),]*@");

    private final String input;
    private int nesting;

    private UriParser(String input) {
        this.input = input;
    }

    static CompositeUri parse(String input) {
        if (input == null) {
            throw new IllegalArgumentException("URI must not be null");
        }
        if (input.isBlank()) {
            throw new IllegalArgumentException("URI must not be blank, but was '" + input + "'");
        }
        UriParser parser = new UriParser(input);
        int start = 0;
        int end = input.length();
        while (Character.isWhitespace(input.charAt(start))) {
            start++;
        }
        while (Character.isWhitespace(input.charAt(end - 1))) {
            end--;
        }
        try {
            int hash = input.indexOf('#');
            if (hash >= 0) {
                throw new SyntaxError("illegal character '#' at position " + hash
                        + " (fragments are not supported; write '#' in an option value as %23)");
            }
            return parser.parseRange(start, end);
        } catch (SyntaxError e) {
            throw new IllegalArgumentException(parser.describe(e));
        }
    }

    private String describe(SyntaxError e) {
        StringBuilder sb = new StringBuilder("invalid URI '").append(mask(input)).append("': ");
        if (e.componentStart >= 0) {
            sb.append("component '").append(mask(input.substring(e.componentStart, e.componentEnd)))
                    .append("' at position ").append(e.componentStart).append(": ");
        }
        return sb.append(e.getMessage()).toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Grammar

    /** Parses one (possibly composite) URI occupying exactly {@code [start, end)}, already trimmed. */
    private CompositeUri parseRange(int start, int end) {
        int i = start;
        while (i < end && isSchemeChar(input.charAt(i))) {
            i++;
        }
        if (i >= end || input.charAt(i) != ':') {
            throw new SyntaxError("missing scheme, expected e.g. 'tcp://host:port' or 'failover:(uri,uri)'");
        }
        if (i + 1 < end && isAllDigits(i + 1, end)) {
            throw new SyntaxError("missing scheme, expected e.g. 'tcp://" + input.substring(start, end) + "'");
        }
        if (i == start) {
            throw new SyntaxError("missing scheme, expected e.g. 'tcp://host:port' or 'failover:(uri,uri)'");
        }
        if (!isAsciiLetter(input.charAt(start))) {
            throw new SyntaxError("scheme must start with a letter, but was '" + input.substring(start, i) + "'");
        }
        String scheme = input.substring(start, i).toLowerCase(Locale.ROOT);
        int p = i + 1;
        if (startsWith(p, end, "(")) {
            return parseComposite(scheme, p, end);
        }
        if (startsWith(p, end, "//(")) {
            return parseComposite(scheme, p + 2, end);
        }
        if (startsWith(p, end, "//")) {
            return parsePlain(scheme, p + 2, end);
        }
        if (p < end && startsWithScheme(p, end)) {
            // ActiveMQ's short form "failover:tcp://a:1,tcp://b:2": components without parentheses,
            // no options of its own (a trailing query belongs to the last component).
            return CompositeUri.ofComposite(scheme, parseComponents(p, end), Map.of());
        }
        if (p < end && Character.isWhitespace(input.charAt(p))) {
            throw new SyntaxError("illegal whitespace at position " + p);
        }
        throw new SyntaxError("expected '//' or '(' after '" + input.substring(start, p) + "' at position " + p);
    }

    private CompositeUri parseComposite(String scheme, int open, int end) {
        int close = findClosingParenthesis(open, end);
        List<CompositeUri> components = parseComponents(open + 1, close);
        Map<String, String> options = Map.of();
        int q = close + 1;
        if (q < end) {
            char c = input.charAt(q);
            if (c == '?') {
                options = parseQuery(q + 1, end);
            } else if (c == ')') {
                throw new SyntaxError("unbalanced parentheses: unexpected ')' at position " + q);
            } else if (Character.isWhitespace(c)) {
                throw new SyntaxError("illegal whitespace at position " + q);
            } else {
                throw new SyntaxError("unexpected '" + mask(input.substring(q, end)) + "' at position " + q
                        + ", expected '?' or the end after ')'");
            }
        }
        return CompositeUri.ofComposite(scheme, components, options);
    }

    private int findClosingParenthesis(int open, int end) {
        int depth = 0;
        for (int j = open; j < end; j++) {
            char c = input.charAt(j);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return j;
            }
        }
        throw new SyntaxError("unbalanced parentheses: missing ')'");
    }

    /** Splits {@code [from, to)} at commas on nesting depth 0 and parses each piece. */
    private List<CompositeUri> parseComponents(int from, int to) {
        List<CompositeUri> components = new ArrayList<>();
        int depth = 0;
        int pieceStart = from;
        for (int j = from; j <= to; j++) {
            char c = j < to ? input.charAt(j) : ',';
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth < 0) {
                    throw new SyntaxError("unbalanced parentheses: unexpected ')' at position " + j);
                }
            } else if (c == ',' && depth == 0) {
                components.add(parseComponent(pieceStart, j));
                pieceStart = j + 1;
            }
        }
        if (depth > 0) {
            throw new SyntaxError("unbalanced parentheses: missing ')'");
        }
        return components;
    }

    private CompositeUri parseComponent(int from, int to) {
        int a = from;
        int b = to;
        while (a < b && Character.isWhitespace(input.charAt(a))) {
            a++;
        }
        while (b > a && Character.isWhitespace(input.charAt(b - 1))) {
            b--;
        }
        if (a == b) {
            throw new SyntaxError("empty component at position " + from);
        }
        if (nesting == MAX_NESTING) {
            throw new SyntaxError("composite URIs nest more than " + MAX_NESTING + " levels deep at position " + a);
        }
        nesting++;
        try {
            return parseRange(a, b);
        } catch (SyntaxError e) {
            if (e.componentStart < 0) {
                e.componentStart = a;
                e.componentEnd = b;
            }
            throw e;
        } finally {
            nesting--;
        }
    }

    private CompositeUri parsePlain(String scheme, int start, int end) {
        for (int j = start; j < end; j++) {
            if (Character.isWhitespace(input.charAt(j))) {
                throw new SyntaxError("illegal whitespace at position " + j);
            }
        }
        int queryStart = indexOf('?', start, end);
        int pathEnd = queryStart < 0 ? end : queryStart;
        for (int j = start; j < pathEnd; j++) {
            char c = input.charAt(j);
            if (c == '(' || c == ')') {
                throw new SyntaxError("unbalanced parentheses: unexpected '" + c + "' at position " + j);
            }
        }
        int authorityEnd = indexOf('/', start, pathEnd);
        if (authorityEnd < 0) {
            authorityEnd = pathEnd;
        }
        String path = input.substring(authorityEnd, pathEnd);
        for (int j = authorityEnd; j < pathEnd; j++) {
            char c = input.charAt(j);
            if (!isUnreserved(c) && "/:@!$*;=+%".indexOf(c) < 0) {
                throw new SyntaxError("illegal character '" + c + "' in path at position " + j);
            }
        }
        Map<String, String> options = queryStart < 0 ? Map.of() : parseQuery(queryStart + 1, end);
        return parseAuthority(scheme, start, authorityEnd, path, options);
    }

    private CompositeUri parseAuthority(String scheme, int start, int end, String path, Map<String, String> options) {
        if (start == end) {
            throw new SyntaxError("missing host at position " + start);
        }
        int at = indexOf('@', start, end);
        if (at >= 0) {
            throw new SyntaxError("user info ('" + MASK + "@') is not supported; "
                    + "pass credentials as options, e.g. 'login' and 'passcode'");
        }
        String host;
        int port = -1;
        if (input.charAt(start) == '[') {
            int close = indexOf(']', start, end);
            if (close < 0) {
                throw new SyntaxError("missing ']' after IPv6 address at position " + start);
            }
            host = ipv6(start + 1, close);
            int rest = close + 1;
            if (rest < end) {
                if (input.charAt(rest) != ':') {
                    throw new SyntaxError("unexpected '" + mask(input.substring(rest, end)) + "' after IPv6 address at position " + rest);
                }
                port = parsePort(rest + 1, end);
            }
        } else {
            int colon = input.lastIndexOf(':', end - 1);
            int hostEnd = colon >= start ? colon : end;
            host = input.substring(start, hostEnd);
            if (host.isEmpty()) {
                throw new SyntaxError("missing host at position " + start);
            }
            if (host.indexOf(':') >= 0) {
                throw new SyntaxError("IPv6 address '" + mask(input.substring(start, end))
                        + "' must be enclosed in brackets, e.g. 'tcp://[::1]:61613'");
            }
            for (int j = start; j < hostEnd; j++) {
                if (!isUnreserved(input.charAt(j))) {
                    throw new SyntaxError("illegal character '" + input.charAt(j) + "' in host '" + mask(host)
                            + "' at position " + j);
                }
            }
            if (colon >= start) {
                port = parsePort(colon + 1, end);
            }
        }
        return CompositeUri.ofPlain(scheme, host, port, path, options);
    }

    private String ipv6(int start, int end) {
        String literal = input.substring(start, end);
        int zone = literal.indexOf("%25");
        String address = zone < 0 ? literal : literal.substring(0, zone);
        String zoneId = zone < 0 ? null : literal.substring(zone + 3);
        boolean valid = address.indexOf(':') >= 0 && !address.isEmpty();
        for (int j = 0; valid && j < address.length(); j++) {
            char c = address.charAt(j);
            valid = Character.digit(c, 16) >= 0 || c == ':' || c == '.';
        }
        if (zoneId != null) {
            valid &= !zoneId.isEmpty() && zoneId.chars().allMatch(c -> isUnreserved((char) c));
        }
        if (!valid) {
            throw new SyntaxError("invalid IPv6 address '[" + mask(literal) + "]' at position " + (start - 1));
        }
        return zoneId == null ? address : address + '%' + zoneId;
    }

    private int parsePort(int start, int end) {
        String text = input.substring(start, end);
        if (text.isEmpty() || !isAllDigits(start, end)) {
            throw new SyntaxError("port must be a number 0-65535, but was '" + mask(text) + "'");
        }
        String digits = text.replaceFirst("^0+(?=\\d)", "");
        if (digits.length() > 5 || Integer.parseInt(digits) > 65_535) {
            throw new SyntaxError("port must be 0-65535, but was " + digits);
        }
        return Integer.parseInt(digits);
    }

    private Map<String, String> parseQuery(int start, int end) {
        Map<String, String> options = new LinkedHashMap<>();
        int i = start;
        while (i < end) {
            int amp = indexOf('&', i, end);
            if (amp < 0) {
                amp = end;
            }
            if (amp > i) {
                for (int j = i; j < amp; j++) {
                    if (Character.isWhitespace(input.charAt(j))) {
                        throw new SyntaxError("illegal whitespace at position " + j);
                    }
                }
                int eq = indexOf('=', i, amp);
                if (eq == i) {
                    throw new SyntaxError("option at position " + i + " has no name");
                }
                String key = decode(i, eq < 0 ? amp : eq, null);
                if (eq < 0) {
                    throw new SyntaxError("option '" + key + "' has no value");
                }
                String value = decode(eq + 1, amp, key);
                if (options.putIfAbsent(key, value) != null) {
                    throw new SyntaxError("duplicate option '" + key + "'");
                }
            }
            i = amp + 1;
        }
        return options;
    }

    /**
     * Decodes {@code application/x-www-form-urlencoded} text, as ActiveMQ does: {@code %XX} as UTF-8 bytes and
     * {@code '+'} as a space.
     */
    private String decode(int start, int end, String key) {
        StringBuilder sb = null;
        for (int j = start; j < end; j++) {
            char c = input.charAt(j);
            if (Character.isSurrogate(c)) {
                // Half a character has no UTF-8 form, so the URI could not be rendered back.
                if (!Character.isHighSurrogate(c) || j + 1 == end || !Character.isLowSurrogate(input.charAt(j + 1))) {
                    throw new SyntaxError(String.format(Locale.ROOT, key == null
                            ? "unpaired surrogate U+%04X in an option name at position %d"
                            : "option '" + key + "' has an unpaired surrogate U+%04X at position %d", (int) c, j));
                }
                if (sb != null) {
                    sb.append(c);
                }
                c = input.charAt(++j);
            }
            if (c != '%' && c != '+') {
                if (sb != null) {
                    sb.append(c);
                }
                continue;
            }
            if (sb == null) {
                sb = new StringBuilder(end - start).append(input, start, j);
            }
            if (c == '+') {
                sb.append(' ');
                continue;
            }
            int runStart = j;
            int runLength = 0;
            for (int k = j; k < end && input.charAt(k) == '%'; k += 3) {
                runLength++;
            }
            ByteBuffer bytes = ByteBuffer.allocate(runLength);
            while (j < end && input.charAt(j) == '%') {
                int hi = j + 2 < end ? Character.digit(input.charAt(j + 1), 16) : -1;
                int lo = j + 2 < end ? Character.digit(input.charAt(j + 2), 16) : -1;
                if (hi < 0 || lo < 0) {
                    throw malformedEncoding(key, j);
                }
                bytes.put((byte) (hi << 4 | lo));
                j += 3;
            }
            j--;
            bytes.flip();
            try {
                sb.append(StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(bytes));
            } catch (CharacterCodingException e) {
                throw malformedEncoding(key, runStart);
            }
        }
        return sb == null ? input.substring(start, end) : sb.toString();
    }

    private static SyntaxError malformedEncoding(String key, int position) {
        return new SyntaxError(key == null
                ? "malformed percent-encoding in an option name at position " + position
                : "option '" + key + "' has a malformed percent-encoding at position " + position);
    }

    // ---------------------------------------------------------------------------------------------
    // Rendering and secrets

    /** Whether the value of an option with this key must never be shown; see {@link CompositeUri#isSecretOption}. */
    static boolean isSecret(String key) {
        String k = key.toLowerCase(Locale.ROOT);
        return k.endsWith("password") || k.endsWith("passcode") || k.endsWith("secret");
    }

    /**
     * Percent-encodes an option key or value so that it survives re-parsing. Inside a component ({@code nested})
     * a comma would split the composite, so it is encoded too; at the top level it stays readable
     * ({@code priorityURIs=tcp://a:1,tcp://b:2}).
     */
    static void encode(StringBuilder out, String text, boolean nested) {
        for (int j = 0; j < text.length(); j++) {
            char c = text.charAt(j);
            if (isUnreserved(c) || ":/@!$*;".indexOf(c) >= 0 || (c == ',' && !nested)) {
                out.append(c);
            } else {
                int cp = text.codePointAt(j);
                if (Character.charCount(cp) == 2) {
                    j++;
                }
                for (byte b : new String(Character.toChars(cp)).getBytes(StandardCharsets.UTF_8)) {
                    out.append('%').append(Character.toUpperCase(Character.forDigit((b >> 4) & 0xF, 16)))
                            .append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
                }
            }
        }
    }

    /**
     * Best-effort masking of raw, possibly malformed URI text for error messages: the values of secret
     * options and any user info. Over-masks rather than leaks: at the top level a secret value runs to the
     * next {@code '&'}; inside parentheses also to the next {@code ')'} or {@code ','}.
     */
    static String mask(String raw) {
        String text = USER_INFO.matcher(raw).replaceAll("//" + MASK + "@");
        StringBuilder out = new StringBuilder(text.length());
        int depth = 0;
        int i = 0;
        int n = text.length();
        while (i < n) {
            char c = text.charAt(i++);
            out.append(c);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth = Math.max(0, depth - 1);
            } else if (c == '?' || c == '&') {
                int j = i;
                while (j < n && "=&?()#,".indexOf(text.charAt(j)) < 0) {
                    j++;
                }
                if (j < n && text.charAt(j) == '=' && isSecret(text.substring(i, j))) {
                    out.append(text, i, j + 1).append(MASK);
                    int k = j + 1;
                    while (k < n) {
                        char v = text.charAt(k);
                        if (v == '&' || (depth > 0 && (v == ')' || v == ','))) {
                            break;
                        }
                        k++;
                    }
                    i = k;
                }
            }
        }
        return out.toString();
    }

    // ---------------------------------------------------------------------------------------------
    // Characters

    static boolean isUnreserved(char c) {
        return isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static boolean isAsciiLetter(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }

    private static boolean isSchemeChar(char c) {
        return isAsciiLetter(c) || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
    }

    private boolean startsWithScheme(int start, int end) {
        if (!isAsciiLetter(input.charAt(start))) {
            return false;
        }
        int j = start;
        while (j < end && isSchemeChar(input.charAt(j))) {
            j++;
        }
        return j < end && input.charAt(j) == ':';
    }

    private boolean isAllDigits(int start, int end) {
        for (int j = start; j < end; j++) {
            char c = input.charAt(j);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private boolean startsWith(int start, int end, String prefix) {
        return end - start >= prefix.length() && input.startsWith(prefix, start);
    }

    /** The first {@code c} in {@code [start, end)}; looks no further, so that parsing many components stays linear. */
    private int indexOf(char c, int start, int end) {
        for (int j = start; j < end; j++) {
            if (input.charAt(j) == c) {
                return j;
            }
        }
        return -1;
    }

    /** A grammar error; positions are 0-based offsets into the whole input. */
    private static final class SyntaxError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        int componentStart = -1;
        int componentEnd = -1;

        SyntaxError(String detail) {
            super(detail, null, false, false);
        }
    }
}
