package lake.security;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ServerSSLOptions;
import lake.config.ConfigException;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateFactory;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One checked set of TLS material read from PEM files: a certificate chain, its private key
 * (PKCS#8, as {@code openssl genpkey} and {@code openssl req -nodes} write it) and optionally a CA
 * whose certificates peers must present.
 *
 * <p>Invariant: an instance exists only for material that checked — every file readable and PEM,
 * the leaf certificate currently valid (not expired, not yet valid), the key matching the leaf's
 * public key (proved by signing and verifying), the CA file holding at least one certificate.
 * Every refusal is a {@link ConfigException} naming the setting and the file, never the key's
 * bytes; {@link #toString()} never prints them either.
 *
 * @param settings the setting names, for messages: cert, key, CA
 */
public record TlsMaterial(Buffer certChain, Buffer key, Buffer ca, List<String> settings) {
    /** TLS 1.2 and 1.3 only, with the JDK's default (strong) suites. */
    public static final Set<String> PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
    private static final Pattern PEM_KEY = Pattern.compile("-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");

    /**
     * Reads and checks the material. {@code caFile} may be {@code null} (peers need present no
     * certificate). Blocking: call at start-up or on a worker thread.
     */
    public static TlsMaterial load(Path certFile, Path keyFile, Path caFile, String certSetting, String keySetting, String caSetting) {
        String certText = read(certFile, certSetting);
        String keyText = read(keyFile, keySetting);
        List<X509Certificate> chain = certificates(certText, certSetting, certFile);
        X509Certificate leaf = chain.get(0);
        try {
            leaf.checkValidity();
        } catch (CertificateExpiredException e) {
            throw new ConfigException(certSetting + ": the certificate in " + certFile + " expired at " + leaf.getNotAfter().toInstant());
        } catch (CertificateNotYetValidException e) {
            throw new ConfigException(certSetting + ": the certificate in " + certFile + " is not valid before "
                    + leaf.getNotBefore().toInstant());
        }
        PrivateKey key = privateKey(keyText, keySetting, keyFile, leaf.getPublicKey().getAlgorithm());
        if (!matches(key, leaf)) {
            throw new ConfigException(keySetting + ": the key in " + keyFile + " does not match the certificate in " + certFile
                    + " (" + certSetting + ")");
        }
        Buffer caPem = null;
        if (caFile != null) {
            String caText = read(caFile, caSetting);
            certificates(caText, caSetting, caFile);
            caPem = Buffer.buffer(caText);
        }
        return new TlsMaterial(Buffer.buffer(certText), Buffer.buffer(keyText), caPem, List.of(certSetting, keySetting, caSetting));
    }

    /** Server options: this certificate, TLS 1.2+, and with a CA, client certificates required. */
    public ServerSSLOptions serverOptions() {
        ServerSSLOptions o = new ServerSSLOptions()
                .setKeyCertOptions(new PemKeyCertOptions().addCertValue(certChain).addKeyValue(key))
                .setEnabledSecureTransportProtocols(PROTOCOLS);
        if (ca != null) o.setTrustOptions(new PemTrustOptions().addCertValue(ca)).setClientAuth(ClientAuth.REQUIRED);
        return o;
    }

    public PemKeyCertOptions keyCertOptions() {
        return new PemKeyCertOptions().addCertValue(certChain).addKeyValue(key);
    }

    public PemTrustOptions trustOptions() {
        return ca == null ? null : new PemTrustOptions().addCertValue(ca);
    }

    /** Whether this and {@code other} are the same bytes (a reload that changed nothing). */
    public boolean sameAs(TlsMaterial other) {
        return other != null && other.certChain.equals(certChain) && other.key.equals(key)
                && (ca == null ? other.ca == null : ca.equals(other.ca));
    }

    @Override
    public String toString() {
        return "TlsMaterial[" + settings + "]";
    }

    private static String read(Path file, String setting) {
        try {
            return Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw ConfigException.file(setting, file, e);
        }
    }

    private static List<X509Certificate> certificates(String pem, String setting, Path file) {
        try {
            Collection<? extends java.security.cert.Certificate> certs = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(pem.getBytes(StandardCharsets.US_ASCII)));
            if (certs.isEmpty()) throw new CertificateException("no certificate");
            return certs.stream().map(c -> (X509Certificate) c).toList();
        } catch (CertificateException e) {
            throw new ConfigException(setting + ": " + file + " holds no PEM certificate");
        }
    }

    private static PrivateKey privateKey(String pem, String setting, Path file, String algorithm) {
        Matcher m = PEM_KEY.matcher(pem);
        if (!m.find()) {
            throw new ConfigException(setting + ": " + file + " holds no unencrypted PKCS#8 private key (-----BEGIN PRIVATE KEY-----;"
                    + " convert with: openssl pkcs8 -topk8 -nocrypt -in old.key -out new.key)");
        }
        try {
            byte[] der = Base64.getMimeDecoder().decode(m.group(1));
            return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
        } catch (Exception e) {
            throw new ConfigException(setting + ": the key in " + file + " is not a " + algorithm + " private key (it must match the certificate)");
        }
    }

    /** Signs a nonce with {@code key} and verifies it with the certificate's public key. */
    private static boolean matches(PrivateKey key, X509Certificate cert) {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "EdDSA" -> "Ed25519";
            default -> null;
        };
        if (alg == null) return false;
        try {
            byte[] nonce = new byte[32];
            new java.security.SecureRandom().nextBytes(nonce);
            Signature s = Signature.getInstance(alg);
            s.initSign(key);
            s.update(nonce);
            byte[] sig = s.sign();
            Signature v = Signature.getInstance(alg);
            v.initVerify(cert.getPublicKey());
            v.update(nonce);
            return v.verify(sig);
        } catch (Exception e) {
            return false;
        }
    }
}
