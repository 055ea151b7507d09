/** Principals an OpenID Connect provider vouches for: bearer JWTs checked against the provider's signing keys (docs/configuration.md, "OIDC principals"). */
package lake.oidc;
