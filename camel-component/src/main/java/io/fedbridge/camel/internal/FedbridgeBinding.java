package io.fedbridge.camel.internal;

import io.fedbridge.core.StompHeaders;
import io.fedbridge.failover.FailoverMessage;
import java.nio.charset.Charset;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.nio.charset.UnsupportedCharsetException;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.apache.camel.Exchange;
import org.apache.camel.Message;
import org.apache.camel.NoTypeConversionAvailableException;
import org.apache.camel.spi.HeaderFilterStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Maps Camel messages to fedbridge messages and back, through a {@link HeaderFilterStrategy}.
 *
 * <ul>
 * <li>Inbound the body is the frame's bytes ({@code byte[]}); Camel's type converters turn it into a String with the
 *     exchange charset, which is set from the {@code content-type}'s charset (UTF-8 without one).</li>
 * <li>Outbound a {@code byte[]} body goes as is; anything else the type converters turn into {@code byte[]} (an
 *     {@code InputStream}, a {@code ByteBuffer}, a file, ...) goes as converted; text, and whatever converts only to
 *     text (numbers, ...), is encoded in the exchange charset (UTF-8 by default) and labelled
 *     {@code content-type: text/plain;charset=...} unless the message has a content type.</li>
 * </ul>
 * Thread-safe.
 */
public final class FedbridgeBinding {

    private static final Logger LOG = LoggerFactory.getLogger(FedbridgeBinding.class);

    private final HeaderFilterStrategy strategy;

    public FedbridgeBinding(HeaderFilterStrategy strategy) {
        this.strategy = strategy;
    }

    /** Fills {@code target} (of {@code exchange}) with a received message's body and headers. */
    public void populate(Message target, FailoverMessage received, Exchange exchange) {
        target.setBody(received.body());
        for (Map.Entry<String, String> h : received.headers().entrySet()) {
            if (!strategy.applyFilterToExternalHeaders(h.getKey(), h.getValue(), exchange)) {
                target.setHeader(h.getKey(), h.getValue());
            }
        }
        target.setMessageId(received.identity());
        if (exchange.getProperty(Exchange.CHARSET_NAME) == null) {
            exchange.setProperty(Exchange.CHARSET_NAME, charsetOf(received.header(StompHeaders.CONTENT_TYPE)).name());
        }
    }

    /**
     * A fedbridge message to {@code destination} with {@code source}'s body and the headers the strategy lets through,
     * less the {@code skipped} ones (compared without regard to case).
     *
     * @throws NoTypeConversionAvailableException if the body cannot be converted to bytes
     */
    public io.fedbridge.core.Message.Builder toFedbridge(Exchange exchange, Message source, String destination,
                                                         String... skipped) throws NoTypeConversionAvailableException {
        io.fedbridge.core.Message.Builder b = io.fedbridge.core.Message.builder(destination);
        String contentType = null;
        for (Map.Entry<String, Object> h : source.getHeaders().entrySet()) {
            String name = h.getKey();
            Object value = h.getValue();
            if (value == null || isSkipped(name, skipped) || strategy.applyFilterToCamelHeaders(name, value, exchange)) {
                continue;
            }
            String text = headerText(value);
            if (text == null) {
                LOG.debug("header {} of type {} not sent to {}: only strings, numbers, booleans, characters, enums and"
                        + " UUIDs go on the wire", name, value.getClass().getName(), destination);
                continue;
            }
            if (name.equalsIgnoreCase(StompHeaders.CONTENT_TYPE)) {
                contentType = text;
                continue;
            }
            b.header(name, text);
        }
        Object body = source.getBody();
        byte[] bytes;
        if (body == null) {
            bytes = new byte[0];
        } else if (body instanceof byte[] raw) {
            bytes = raw;
        } else {
            byte[] converted = body instanceof CharSequence ? null
                    : exchange.getContext().getTypeConverter().tryConvertTo(byte[].class, exchange, body);
            if (converted != null) {
                bytes = converted;
            } else {
                // Text, and what only converts to text (numbers, ...): encoded in the exchange charset.
                String text = exchange.getContext().getTypeConverter().mandatoryConvertTo(String.class, exchange, body);
                Charset charset = exchangeCharset(exchange);
                bytes = text.getBytes(charset);
                if (contentType == null) {
                    contentType = "text/plain;charset=" + charset.name();
                }
            }
        }
        if (contentType != null) {
            b.contentType(contentType);
        }
        return b.body(bytes);
    }

    private static boolean isSkipped(String name, String[] skipped) {
        for (String s : skipped) {
            if (s.equalsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    private static String headerText(Object value) {
        if (value instanceof CharSequence || value instanceof Number || value instanceof Boolean
                || value instanceof Character || value instanceof UUID) {
            return value.toString();
        }
        if (value instanceof Enum<?> e) {
            return e.name();
        }
        return null;
    }

    private static Charset exchangeCharset(Exchange exchange) {
        String name = exchange.getProperty(Exchange.CHARSET_NAME, String.class);
        if (name != null) {
            try {
                return Charset.forName(name);
            } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                LOG.debug("unknown charset {} on exchange {}, using UTF-8", name, exchange.getExchangeId());
            }
        }
        return StandardCharsets.UTF_8;
    }

    /** The charset a {@code content-type} names, UTF-8 (STOMP's default for text) when it names none or an unknown one. */
    static Charset charsetOf(String contentType) {
        if (contentType != null) {
            for (String part : contentType.split(";")) {
                String p = part.trim();
                if (p.toLowerCase(Locale.ROOT).startsWith("charset=")) {
                    String name = p.substring("charset=".length()).trim().replace("\"", "");
                    try {
                        return Charset.forName(name);
                    } catch (IllegalCharsetNameException | UnsupportedCharsetException e) {
                        return StandardCharsets.UTF_8;
                    }
                }
            }
        }
        return StandardCharsets.UTF_8;
    }
}
