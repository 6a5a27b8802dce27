package io.fedbridge.core.selector;

import io.fedbridge.core.selector.Token.Kind;
import java.util.Locale;
import java.util.Map;

/**
 * Splits a selector into tokens on demand, so the first error reported is the leftmost one.
 */
final class Lexer {

    private static final Map<String, Kind> KEYWORDS = Map.ofEntries(
            Map.entry("AND", Kind.AND),
            Map.entry("OR", Kind.OR),
            Map.entry("NOT", Kind.NOT),
            Map.entry("BETWEEN", Kind.BETWEEN),
            Map.entry("LIKE", Kind.LIKE),
            Map.entry("ESCAPE", Kind.ESCAPE),
            Map.entry("IN", Kind.IN),
            Map.entry("IS", Kind.IS),
            Map.entry("NULL", Kind.NULL),
            Map.entry("TRUE", Kind.TRUE),
            Map.entry("FALSE", Kind.FALSE));

    private final String source;
    private int pos;

    Lexer(String source) {
        this.source = source;
    }

    /** JMS whitespace: the Java whitespace characters space, tab, form feed and line terminators. */
    static boolean isWhitespace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
    }

    static boolean isIdentifierStart(int cp) {
        return Character.isLetter(cp) || cp == '_' || cp == '$';
    }

    static boolean isIdentifierPart(int cp) {
        return isIdentifierStart(cp) || Character.isDigit(cp);
    }

    Token next() {
        while (pos < source.length() && isWhitespace(source.charAt(pos))) {
            pos++;
        }
        if (pos >= source.length()) {
            return new Token(Kind.END, "", pos, pos);
        }
        int start = pos;
        char c = source.charAt(pos);
        switch (c) {
            case '\'':
                return string(start);
            case '=':
                pos++;
                return new Token(Kind.EQ, "=", start, pos);
            case '<':
                pos++;
                if (pos < source.length() && source.charAt(pos) == '>') {
                    pos++;
                    return new Token(Kind.NE, "<>", start, pos);
                }
                if (pos < source.length() && source.charAt(pos) == '=') {
                    pos++;
                    return new Token(Kind.LE, "<=", start, pos);
                }
                return new Token(Kind.LT, "<", start, pos);
            case '>':
                pos++;
                if (pos < source.length() && source.charAt(pos) == '=') {
                    pos++;
                    return new Token(Kind.GE, ">=", start, pos);
                }
                return new Token(Kind.GT, ">", start, pos);
            case '+':
                pos++;
                return new Token(Kind.PLUS, "+", start, pos);
            case '-':
                pos++;
                return new Token(Kind.MINUS, "-", start, pos);
            case '*':
                pos++;
                return new Token(Kind.STAR, "*", start, pos);
            case '/':
                pos++;
                return new Token(Kind.SLASH, "/", start, pos);
            case '(':
                pos++;
                return new Token(Kind.LPAREN, "(", start, pos);
            case ')':
                pos++;
                return new Token(Kind.RPAREN, ")", start, pos);
            case ',':
                pos++;
                return new Token(Kind.COMMA, ",", start, pos);
            default:
                break;
        }
        if (isDigit(c) || (c == '.' && pos + 1 < source.length() && isDigit(source.charAt(pos + 1)))) {
            return number(start);
        }
        int cp = source.codePointAt(pos);
        if (isIdentifierStart(cp)) {
            return word(start);
        }
        throw unexpected(start, cp);
    }

    private Token string(int start) {
        StringBuilder value = new StringBuilder();
        pos++; // opening quote
        while (pos < source.length()) {
            char c = source.charAt(pos++);
            if (c == '\'') {
                if (pos < source.length() && source.charAt(pos) == '\'') {
                    value.append('\'');
                    pos++;
                } else {
                    return new Token(Kind.STRING, value.toString(), start, pos);
                }
            } else {
                value.append(c);
            }
        }
        throw new InvalidSelectorException(source, start,
                "unterminated string literal (a quote inside a string is written as '')");
    }

    private Token number(int start) {
        boolean approximate = false;
        while (pos < source.length() && isDigit(source.charAt(pos))) {
            pos++;
        }
        if (pos < source.length() && source.charAt(pos) == '.') {
            approximate = true;
            pos++;
            while (pos < source.length() && isDigit(source.charAt(pos))) {
                pos++;
            }
        }
        if (pos < source.length() && (source.charAt(pos) == 'e' || source.charAt(pos) == 'E')) {
            approximate = true;
            pos++;
            if (pos < source.length() && (source.charAt(pos) == '+' || source.charAt(pos) == '-')) {
                pos++;
            }
            int digits = pos;
            while (pos < source.length() && isDigit(source.charAt(pos))) {
                pos++;
            }
            if (pos == digits) {
                throw malformedNumber(start);
            }
        }
        if (pos < source.length() && (isIdentifierPart(source.codePointAt(pos)) || source.charAt(pos) == '.')) {
            throw malformedNumber(start);
        }
        return new Token(approximate ? Kind.APPROXIMATE_NUMBER : Kind.EXACT_NUMBER,
                source.substring(start, pos), start, pos);
    }

    private InvalidSelectorException malformedNumber(int start) {
        int end = pos;
        while (end < source.length() && (isIdentifierPart(source.codePointAt(end))
                || source.charAt(end) == '.' || source.charAt(end) == '+' || source.charAt(end) == '-')) {
            end += Character.charCount(source.codePointAt(end));
        }
        return new InvalidSelectorException(source, start,
                "malformed numeric literal '" + source.substring(start, end) + "'");
    }

    private Token word(int start) {
        while (pos < source.length() && isIdentifierPart(source.codePointAt(pos))) {
            pos += Character.charCount(source.codePointAt(pos));
        }
        String text = source.substring(start, pos);
        Kind keyword = KEYWORDS.get(text.toUpperCase(Locale.ROOT));
        return new Token(keyword != null ? keyword : Kind.IDENTIFIER, text, start, pos);
    }

    private InvalidSelectorException unexpected(int start, int cp) {
        String hint = "";
        char next = start + 1 < source.length() ? source.charAt(start + 1) : 0;
        if (cp == '!' && next == '=') {
            hint = "; use '<>' for 'not equal'";
        } else if (cp == '&' && next == '&') {
            hint = "; use AND";
        } else if (cp == '|' && next == '|') {
            hint = "; use OR";
        } else if (cp == '"') {
            hint = "; string literals are enclosed in single quotes";
        } else if (cp == '.') {
            hint = "; identifiers cannot contain '.'";
        }
        return new InvalidSelectorException(source, start, "unexpected character " + show(cp) + hint);
    }

    private static String show(int cp) {
        if (Character.isISOControl(cp) || Character.isWhitespace(cp) || !Character.isDefined(cp)) {
            return String.format(Locale.ROOT, "U+%04X", cp);
        }
        return "'" + new String(Character.toChars(cp)) + "'";
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
