// The JOSE header of a compact JWS, read before any key is chosen: by the JWT check, the JWKS
// lookup (by kid) and OAuth (a JWT, or an opaque token to introspect).

/** The parts of a JWS header the guard reads before choosing a key. */
export interface JoseHeader {
  alg: string
  kid?: string
  /** The media type of the token (RFC 7515 §4.1.9), lower-cased. */
  typ?: string
}

// Compact JWS: three base64url segments, the signature possibly empty (alg none, refused later).
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/

/** The header of a compact JWS, or undefined when the token is not one. */
export function decodeHeader (token: string): JoseHeader | undefined {
  if (!COMPACT_JWS.test(token)) return undefined
  try {
    const header: unknown = JSON.parse(Buffer.from(token.slice(0, token.indexOf('.')), 'base64url').toString('utf8'))
    if (typeof header !== 'object' || header === null) return undefined
    const { alg, kid, typ } = header as { alg?: unknown, kid?: unknown, typ?: unknown }
    if (typeof alg !== 'string') return undefined
    if (kid !== undefined && typeof kid !== 'string') return undefined
    if (typ !== undefined && typeof typ !== 'string') return undefined
    const decoded: JoseHeader = { alg }
    if (kid !== undefined) decoded.kid = kid
    if (typ !== undefined) decoded.typ = typ.toLowerCase()
    return decoded
  } catch {
    return undefined
  }
}
