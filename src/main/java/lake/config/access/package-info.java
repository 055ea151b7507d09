/** Who may do what, as configured: a principal (token digest or certificate subject, role, grants), a grant on a catalog object, the OIDC provider's settings. */
package lake.config.access;
