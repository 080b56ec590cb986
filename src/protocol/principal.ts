/**
 * What authentication proved about the caller. Users add their own claim
 * types by declaration merging:
 *
 *   declare module 'fastify-mcp-server' { interface MCPAuthClaims { tenant: string } }
 */

export interface MCPAuthClaims {}

/**
 * The verified caller of one request. Its identity is four fields together: `method`, `kind`,
 * `issuer` and `subject`; compare principals with {@link samePrincipal} and key maps with
 * {@link principalKey}, never with one of those fields alone. Scopes, claims and expiry belong to
 * the credential presented, which may change from one request to the next for one identity.
 */
export interface Principal {
  /** Which auth method verified the caller. */
  method: 'jwt' | 'apikey' | 'oauth'
  /**
   * What `subject` names, so that different kinds of identity never match:
   * - `'user'`: the token's `sub` claim, whatever the issuer says it is (a person; for
   *   client-credentials tokens per RFC 9068, the client);
   * - `'client'`: a token without `sub`, known by its `client_id` (never the same as a user of
   *   that name);
   * - `'key'`: an API key.
   */
  kind: 'user' | 'client' | 'key'
  /**
   * Who issued the token: its `iss` claim (for an introspected token without one, the OAuth
   * issuer). Absent for API keys and for tokens that name no issuer.
   */
  issuer?: string
  /**
   * `sub`, `client_id`, or `apikey:<fingerprint>`, as received: unique only together with
   * `method`, `kind` and `issuer`.
   */
  subject: string
  /** Granted scopes (from `scope`/`scp` claims or introspection); empty when none. */
  scopes: readonly string[]
  /** Verified token claims; empty for API keys. */
  claims: Partial<MCPAuthClaims> & Record<string, unknown>
  /** API keys: index of the matching key in `keys` and a short non-reversible fingerprint. */
  keyIndex?: number
  keyFingerprint?: string
  /** Epoch milliseconds after which the credential is no longer valid, when known. */
  expiresAt?: number
}

/** The fields that make an identity; everything else in a principal describes one credential. */
export type PrincipalIdentity = Pick<Principal, 'method' | 'kind' | 'issuer' | 'subject'>

/**
 * Whether two principals are the same identity (same method, kind, issuer and subject), whatever
 * tokens they came with. No principal is the same only as no principal (auth off).
 */
export function samePrincipal (a: PrincipalIdentity | undefined, b: PrincipalIdentity | undefined): boolean {
  if (a === undefined || b === undefined) return a === b
  return a.method === b.method && a.kind === b.kind && a.issuer === b.issuer && a.subject === b.subject
}

/**
 * A string naming the identity, for map keys: equal for two principals exactly when
 * {@link samePrincipal} says they are the same. A JSON array, so no value can forge a separator
 * (`iss "a|b", sub "c"` and `iss "a", sub "b|c"` get different keys).
 */
export function principalKey (principal: PrincipalIdentity): string {
  return JSON.stringify([principal.method, principal.kind, principal.issuer ?? null, principal.subject])
}
