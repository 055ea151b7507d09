package lake.config;

import lake.config.access.AuthToken;
import lake.config.access.OidcSettings;

import java.nio.file.Path;
import java.util.List;

/**
 * A node's security material, by path: what it re-reads without a restart (SIGHUP, or the files
 * changing). Holds paths and token digests only, never a token or key material.
 *
 * @param authTokensFile      the {@code auth_tokens_file}, or {@code null}
 * @param inlineTokens        the entries of {@code auth_tokens} (fixed for the process's life), which a
 *                            reload combines with the file's
 * @param tlsCertFile         {@code tls_cert_file}: with {@code tlsKeyFile}, the HTTP port serves TLS only; or {@code null}
 * @param tlsKeyFile          {@code tls_key_file}, or {@code null}
 * @param tlsClientCaFile     {@code tls_client_ca_file}: HTTP clients must present a certificate this CA signed; or {@code null}
 * @param clusterTlsCertFile  {@code cluster_tls_cert_file}: with the key and CA, the clustered event bus runs over mutual TLS; or {@code null}
 * @param clusterTlsKeyFile   {@code cluster_tls_key_file}, or {@code null}
 * @param clusterTlsCaFile    {@code cluster_tls_ca_file}, or {@code null}
 * @param oidc                bearer JWTs from an OpenID Connect provider ({@code oidc_*}), or {@code null}: tokens and certificates only
 */
public record SecuritySettings(Path authTokensFile, List<AuthToken> inlineTokens, Path tlsCertFile, Path tlsKeyFile,
                               Path tlsClientCaFile, Path clusterTlsCertFile, Path clusterTlsKeyFile, Path clusterTlsCaFile,
                               OidcSettings oidc) {
    public SecuritySettings {
        inlineTokens = inlineTokens == null ? List.of() : List.copyOf(inlineTokens);
    }

    /** Tokens only, no TLS. */
    public SecuritySettings(Path authTokensFile, List<AuthToken> inlineTokens) {
        this(authTokensFile, inlineTokens, null, null, null, null, null, null, null);
    }

    public static SecuritySettings none() {
        return new SecuritySettings(null, List.of());
    }

    public boolean httpsEnabled() {
        return tlsCertFile != null;
    }

    public boolean clusterTlsEnabled() {
        return clusterTlsCertFile != null;
    }

    public SecuritySettings withHttpsFiles(Path cert, Path key, Path clientCa) {
        return new SecuritySettings(authTokensFile, inlineTokens, cert, key, clientCa, clusterTlsCertFile, clusterTlsKeyFile, clusterTlsCaFile, oidc);
    }

    public SecuritySettings withClusterTlsFiles(Path cert, Path key, Path ca) {
        return new SecuritySettings(authTokensFile, inlineTokens, tlsCertFile, tlsKeyFile, tlsClientCaFile, cert, key, ca, oidc);
    }

    public SecuritySettings withOidc(OidcSettings oidc) {
        return new SecuritySettings(authTokensFile, inlineTokens, tlsCertFile, tlsKeyFile, tlsClientCaFile, clusterTlsCertFile,
                clusterTlsKeyFile, clusterTlsCaFile, oidc);
    }
}
