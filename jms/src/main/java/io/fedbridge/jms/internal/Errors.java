package io.fedbridge.jms.internal;

import io.fedbridge.core.StompErrorException;
import io.fedbridge.failover.TransactionInDoubtException;
import jakarta.jms.IllegalStateException;
import jakarta.jms.IllegalStateRuntimeException;
import jakarta.jms.InvalidClientIDException;
import jakarta.jms.InvalidClientIDRuntimeException;
import jakarta.jms.InvalidDestinationException;
import jakarta.jms.InvalidDestinationRuntimeException;
import jakarta.jms.InvalidSelectorException;
import jakarta.jms.InvalidSelectorRuntimeException;
import jakarta.jms.JMSException;
import jakarta.jms.JMSRuntimeException;
import jakarta.jms.JMSSecurityException;
import jakarta.jms.JMSSecurityRuntimeException;
import jakarta.jms.MessageFormatException;
import jakarta.jms.MessageFormatRuntimeException;
import jakarta.jms.MessageNotWriteableException;
import jakarta.jms.MessageNotWriteableRuntimeException;
import jakarta.jms.TransactionInProgressException;
import jakarta.jms.TransactionInProgressRuntimeException;
import jakarta.jms.TransactionRolledBackException;
import jakarta.jms.TransactionRolledBackRuntimeException;

/** The failover client's errors as JMS exceptions, and JMS exceptions as the JMSContext API's runtime ones. */
final class Errors {

    private Errors() {
    }

    /** {@code e} as the JMSException a JMS caller expects; the cause is kept as the linked exception. */
    static JMSException jms(String what, Throwable e) {
        if (e instanceof JMSException j) {
            return j;
        }
        String detail = what + ": " + describe(e);
        JMSException out;
        if (e instanceof io.fedbridge.failover.TransactionRolledBackException) {
            out = new TransactionRolledBackException(detail);
        } else if (e instanceof TransactionInDoubtException) {
            out = new JMSException(detail + " (the transaction is in doubt: the broker committed all of it or none)");
        } else if (mentions(e, "client-id")) {
            out = new InvalidClientIDException(detail);
        } else if (mentions(e, "denied") || mentions(e, "authentication") || mentions(e, "login")) {
            out = new JMSSecurityException(detail);
        } else {
            out = new JMSException(detail);
        }
        out.setLinkedException(e instanceof Exception x ? x : new RuntimeException(e));
        out.initCause(e);
        return out;
    }

    /**
     * {@code e} from making a connection. A broker that answers CONNECT with ERROR refused it: for a client-id another
     * connection holds ({@link InvalidClientIDException}), for too many connections ({@link JMSException}), else for
     * its credentials ({@link JMSSecurityException}, JMS 6.1.1).
     */
    static JMSException connect(String what, Throwable e) {
        StompErrorException refusal = null;
        for (Throwable t = e; t != null && refusal == null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof StompErrorException s) {
                refusal = s;
            }
        }
        if (refusal == null) {
            return jms(what, e);
        }
        String m = refusal.getMessage() == null ? "" : refusal.getMessage();
        String detail = what + ": " + describe(e);
        JMSException out = m.contains("client-id") ? new InvalidClientIDException(detail)
                : m.contains("limit") || m.contains("too many") ? new JMSException(detail)
                : new JMSSecurityException(detail);
        out.setLinkedException(e instanceof Exception x ? x : new RuntimeException(e));
        out.initCause(e);
        return out;
    }

    private static String describe(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage();
    }

    /** Whether a broker's ERROR in the chain of {@code e} says {@code word}. */
    private static boolean mentions(Throwable e, String word) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof StompErrorException && t.getMessage() != null && t.getMessage().contains(word)) {
                return true;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return false;
    }

    /** The JMSContext form of {@code e} (JMS 2's runtime exceptions mirror the checked ones). */
    static JMSRuntimeException runtime(JMSException e) {
        String m = e.getMessage();
        String code = e.getErrorCode();
        JMSRuntimeException r;
        if (e instanceof IllegalStateException) {
            r = new IllegalStateRuntimeException(m, code, e);
        } else if (e instanceof InvalidDestinationException) {
            r = new InvalidDestinationRuntimeException(m, code, e);
        } else if (e instanceof InvalidSelectorException) {
            r = new InvalidSelectorRuntimeException(m, code, e);
        } else if (e instanceof InvalidClientIDException) {
            r = new InvalidClientIDRuntimeException(m, code, e);
        } else if (e instanceof JMSSecurityException) {
            r = new JMSSecurityRuntimeException(m, code, e);
        } else if (e instanceof MessageFormatException) {
            r = new MessageFormatRuntimeException(m, code, e);
        } else if (e instanceof MessageNotWriteableException) {
            r = new MessageNotWriteableRuntimeException(m, code, e);
        } else if (e instanceof TransactionRolledBackException) {
            r = new TransactionRolledBackRuntimeException(m, code, e);
        } else if (e instanceof TransactionInProgressException) {
            r = new TransactionInProgressRuntimeException(m, code, e);
        } else {
            r = new JMSRuntimeException(m, code, e);
        }
        return r;
    }

    static IllegalStateException closed(String what) {
        return new IllegalStateException(what + " is closed");
    }
}
