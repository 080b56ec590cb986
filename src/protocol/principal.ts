/**
 * What authentication proved about the caller. Users add their own claim
 * types by declaration merging:
 *
 *   declare module 'fastify-mcp-server' { interface MCPAuthClaims { tenant: string } }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface MCPAuthClaims {}

export interface Principal {
  /** Which auth method verified the caller. */
  method: 'jwt' | 'apikey' | 'oauth'
  /**
   * Stable identity used for session ownership: the token's `sub` (qualified by
   * its issuer when present), or `apikey:<fingerprint>` for API keys.
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
