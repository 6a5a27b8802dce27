package io.fedbridge.core.tls;

/** Whether a TLS listener asks connecting clients for a certificate. */
public enum ClientAuth {
    /** No client certificate is requested (the default). */
    NONE,
    /** A certificate is requested; a client without one is still accepted, one with an untrusted one is not. */
    WANT,
    /** A certificate signed by the trust store is required; the handshake fails without one. */
    NEED
}
