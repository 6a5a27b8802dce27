package io.fedbridge.camel;

import io.fedbridge.core.StompHeaders;
import java.util.Locale;
import java.util.Set;
import org.apache.camel.Exchange;
import org.apache.camel.support.DefaultHeaderFilterStrategy;

/**
 * Which headers cross between Camel messages and STOMP frames. The default of every {@code fedbridge:} endpoint;
 * replace it with the {@code headerFilterStrategy} option (component or endpoint), or subclass it to drop more.
 *
 * <ul>
 * <li><b>Camel to the wire</b>: every header whose value is a string, number, boolean, character, enum or UUID,
 *     except {@code Camel*} / {@code org.apache.camel.*} headers, the frame-level STOMP headers the client and broker
 *     set themselves ({@code destination}, {@code message-id}, {@code subscription}, {@code ack}, {@code receipt},
 *     {@code receipt-id}, {@code content-length}, {@code transaction}, {@code redelivered},
 *     {@code redelivery-count}, {@code session}) and the federation headers ({@code fedbridge-*}): a message a route
 *     received and sends on is a new message to the federation, with a new {@code fedbridge-id}, not a duplicate.</li>
 * <li><b>The wire to Camel</b>: every header of the MESSAGE frame, except {@code Camel*} / {@code org.apache.camel.*}
 *     headers (no client can steer a route's internals from the wire) and the frame-level {@code ack},
 *     {@code subscription} and {@code content-length}.</li>
 * </ul>
 * Names are compared without regard to case. Thread-safe once configured.
 */
public class FedbridgeHeaderFilterStrategy extends DefaultHeaderFilterStrategy {

    /** Frame-level headers never copied from a Camel message onto a SEND. */
    public static final Set<String> OUT_FILTER = Set.of(StompHeaders.DESTINATION, StompHeaders.MESSAGE_ID,
            StompHeaders.SUBSCRIPTION, StompHeaders.ACK, StompHeaders.RECEIPT, StompHeaders.RECEIPT_ID,
            StompHeaders.CONTENT_LENGTH, StompHeaders.TRANSACTION, StompHeaders.REDELIVERED,
            StompHeaders.REDELIVERY_COUNT, StompHeaders.SESSION);

    /** Frame-level headers never copied from a MESSAGE onto a Camel message. */
    public static final Set<String> IN_FILTER = Set.of(StompHeaders.ACK, StompHeaders.SUBSCRIPTION,
            StompHeaders.CONTENT_LENGTH);

    /** The prefix of fedbridge's federation headers, never copied onto a SEND. */
    public static final String FEDERATION_PREFIX = "fedbridge-";

    /** Prefixes of Camel's own headers, kept off the wire in both directions. */
    public static final String[] CAMEL_PREFIXES = {"Camel", "camel", "CAMEL", "org.apache.camel."};

    public FedbridgeHeaderFilterStrategy() {
        setCaseInsensitive(true);
        setOutFilterStartsWith(CAMEL_PREFIXES);
        setInFilterStartsWith(CAMEL_PREFIXES);
        setOutFilter(OUT_FILTER);
        setInFilter(IN_FILTER);
    }

    @Override
    protected boolean extendedFilter(Direction direction, String key, Object value, Exchange exchange) {
        return direction == Direction.OUT && key.toLowerCase(Locale.ROOT).startsWith(FEDERATION_PREFIX);
    }
}
