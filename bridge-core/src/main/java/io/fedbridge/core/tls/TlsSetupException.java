package io.fedbridge.core.tls;

import io.fedbridge.core.StompException;

/**
 * A TLS configuration that cannot be put to use: a key store or trust store that cannot be read, a wrong
 * store password, a store without a key. The message names the store file, never a password.
 */
public class TlsSetupException extends StompException {
    private static final long serialVersionUID = 1L;

    public TlsSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
