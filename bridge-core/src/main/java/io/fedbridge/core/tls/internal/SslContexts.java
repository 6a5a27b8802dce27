package io.fedbridge.core.tls.internal;

import io.fedbridge.core.tls.TlsConfig;
import io.fedbridge.core.tls.TlsSetupException;
import io.fedbridge.core.uri.CompositeUri;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Enumeration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Turns a {@link TlsConfig} into Netty {@link SslContext}s and {@link SslHandler}s on the JDK provider. Client
 * contexts are cached per config (loading a PKCS12 store costs tens of milliseconds, too much for an event
 * loop on every reconnect); a changed store file is read again only for a config not seen before.
 */
public final class SslContexts {

    private static final int MAX_CACHED = 64;
    private static final Map<TlsConfig, SslContext> CLIENT_CONTEXTS = new ConcurrentHashMap<>();

    private SslContexts() {
    }

    /** The client context for {@code config}, built on first use. */
    public static SslContext forClient(TlsConfig config) {
        SslContext c = CLIENT_CONTEXTS.get(config);
        if (c != null) {
            return c;
        }
        c = buildClient(config);
        if (CLIENT_CONTEXTS.size() >= MAX_CACHED) {
            CLIENT_CONTEXTS.clear();
        }
        CLIENT_CONTEXTS.putIfAbsent(config, c);
        return c;
    }

    /**
     * A new server context; a listener builds one when it starts.
     *
     * @throws TlsSetupException if there is no key store, or a store cannot be read
     */
    public static SslContext forServer(TlsConfig config) {
        if (config.keyStore() == null) {
            throw new TlsSetupException("an ssl:// listener needs a keyStore holding its certificate and private key", null);
        }
        try {
            SslContextBuilder b = SslContextBuilder.forServer(keyManagers(config))
                    .sslProvider(SslProvider.JDK)
                    .protocols(config.enabledProtocols())
                    .clientAuth(switch (config.clientAuth()) {
                        case NONE -> io.netty.handler.ssl.ClientAuth.NONE;
                        case WANT -> io.netty.handler.ssl.ClientAuth.OPTIONAL;
                        case NEED -> io.netty.handler.ssl.ClientAuth.REQUIRE;
                    });
            if (config.trustStore() != null) {
                b.trustManager(trustManagers(config));
            }
            if (!config.enabledCipherSuites().isEmpty()) {
                b.ciphers(config.enabledCipherSuites());
            }
            return b.build();
        } catch (SSLException e) {
            throw new TlsSetupException("cannot set up TLS for a listener: " + e.getMessage(), e);
        }
    }

    private static SslContext buildClient(TlsConfig config) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .sslProvider(SslProvider.JDK)
                    .protocols(config.enabledProtocols())
                    .endpointIdentificationAlgorithm(config.verifyHostName() ? "HTTPS" : null);
            if (config.keyStore() != null) {
                b.keyManager(keyManagers(config));
            }
            if (config.trustStore() != null) {
                b.trustManager(trustManagers(config));
            }
            if (!config.enabledCipherSuites().isEmpty()) {
                b.ciphers(config.enabledCipherSuites());
            }
            return b.build();
        } catch (SSLException e) {
            throw new TlsSetupException("cannot set up TLS for a client: " + e.getMessage(), e);
        }
    }

    /** A client-side handler for {@code uri}: SNI and host-name verification use the URI's host. */
    public static SslHandler newClientHandler(TlsConfig config, CompositeUri uri, ByteBufAllocator alloc) {
        SslHandler h = forClient(config).newHandler(alloc, uri.host(), uri.port());
        h.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        return h;
    }

    public static SslHandler newServerHandler(SslContext context, TlsConfig config, ByteBufAllocator alloc) {
        SslHandler h = context.newHandler(alloc);
        h.setHandshakeTimeoutMillis(config.handshakeTimeout().toMillis());
        return h;
    }

    /** The verified certificate chain the peer of {@code channel} presented, or null (no TLS, or no certificate). */
    public static X509Certificate[] peerCertificates(Channel channel) {
        SslHandler h = channel.pipeline().get(SslHandler.class);
        if (h == null) {
            return null;
        }
        try {
            Certificate[] chain = h.engine().getSession().getPeerCertificates();
            X509Certificate[] x509 = new X509Certificate[chain.length];
            for (int i = 0; i < chain.length; i++) {
                if (!(chain[i] instanceof X509Certificate c)) {
                    return null;
                }
                x509[i] = c;
            }
            return x509;
        } catch (SSLPeerUnverifiedException e) {
            return null;
        }
    }

    private static KeyManagerFactory keyManagers(TlsConfig config) {
        KeyStore ks = load("keyStore", config.keyStore(), config.keyStoreType(), config.keyStorePassword());
        try {
            if (!hasKey(ks)) {
                throw new TlsSetupException("keyStore " + config.keyStore() + " holds no private key", null);
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, chars(config.keyStorePassword()));
            return kmf;
        } catch (GeneralSecurityException e) {
            throw new TlsSetupException("cannot use the key in keyStore " + config.keyStore() + ": " + e.getMessage(), e);
        }
    }

    private static TrustManagerFactory trustManagers(TlsConfig config) {
        KeyStore ts = load("trustStore", config.trustStore(), config.trustStoreType(), config.trustStorePassword());
        try {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(ts);
            return tmf;
        } catch (GeneralSecurityException e) {
            throw new TlsSetupException("cannot use trustStore " + config.trustStore() + ": " + e.getMessage(), e);
        }
    }

    private static boolean hasKey(KeyStore ks) throws GeneralSecurityException {
        Enumeration<String> aliases = ks.aliases();
        while (aliases.hasMoreElements()) {
            if (ks.isKeyEntry(aliases.nextElement())) {
                return true;
            }
        }
        return false;
    }

    private static KeyStore load(String what, Path file, String type, String password) {
        try (InputStream in = Files.newInputStream(file)) {
            KeyStore ks = KeyStore.getInstance(type);
            ks.load(in, chars(password));
            return ks;
        } catch (IOException | GeneralSecurityException e) {
            // The JDK's messages ("keystore password was incorrect") never contain the password.
            throw new TlsSetupException("cannot read " + what + " " + file + " (" + type + "): " + e, e);
        }
    }

    private static char[] chars(String password) {
        return password == null ? null : password.toCharArray();
    }
}
