/** Principals, the grant rules as pure functions, the caller of a request, and the audit trail. */
package lake.security;
