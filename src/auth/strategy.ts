import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify'
import type { Principal } from '../protocol/principal.js'
import type { ResolvedPluginOptions } from '../schemas/resolve.js'
import { RETRY_AFTER_SECONDS } from '../util/retry-after.js'
import { invalidRequest, invalidToken, missingCredential, type AuthFailure } from './errors.js'

/** The resolved `auth` option as the transports hold it (deep-readonly, defaults filled in). */
export type AuthConfig = NonNullable<ResolvedPluginOptions['auth']>
/** The options of one auth method. */
export type AuthMethodOptions<T extends AuthConfig['type']> = Extract<AuthConfig, { type: T }>['options']

/** What each auth method (jwt, apikey, oauth) gives the guard. */
export interface Strategy {
  /** Verifies the request's credential: the principal, or throws an AuthFailure. */
  authenticate: (request: FastifyRequest) => Principal | Promise<Principal>
  /** The `WWW-Authenticate` value answering `failure` (RFC 7235, RFC 6750 §3). */
  challenge: (request: FastifyRequest, failure: AuthFailure) => string
  /** Query parameters that may carry a credential (rightly or not), redacted from logged URLs. */
  redactParams: readonly string[]
  /** How long after its `exp` a token is still accepted, in ms (clock skew). */
  clockToleranceMs: number
  /** The RFC 9728 metadata URL of the resource `request` reached (`oauth`); undefined when there is none. */
  resourceMetadata?: (request: FastifyRequest) => string | undefined
  /** Routes outside auth (RFC 9728 metadata), each behind `onRequest` (the Host guard). */
  registerRoutes?: (app: FastifyInstance, onRequest: onRequestHookHandler[]) => Promise<void>
  close: () => void
}

/** Largest verified-token cache of the JWT paths, in entries. */
export const VERIFIED_TOKEN_CACHE_SIZE = 10_000
/**
 * Longest a verified token is trusted without verifying it again, in ms, even when its `exp` is
 * later: bounds how long a token signed by a key the issuer has since withdrawn keeps working.
 */
export const VERIFIED_TOKEN_MAX_CACHE_MS = 5 * 60_000
/** Clock skew allowed on the `exp` and `nbf` of OAuth access tokens (JWT or introspected), in ms. */
export const CLOCK_TOLERANCE_MS = 5_000

// RFC 6750 §2.1: b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/

/**
 * The bearer token of the Authorization header (RFC 6750 §2.1), the only place one is accepted:
 * a token in the query string ends up in logs, browser history and Referer headers, so an
 * `access_token` parameter is refused outright (RFC 6750 §5.3), even next to a valid header.
 * The size is checked before anything else looks at the token.
 */
export function bearerToken (request: FastifyRequest, maxBytes: number): string {
  if ((request.query as Record<string, unknown> | undefined)?.access_token !== undefined) {
    throw invalidRequest('Bearer tokens are accepted in the Authorization header only, not in the query string')
  }
  const header = request.headers.authorization
  if (header === undefined || header === '') {
    throw missingCredential('Missing credential: send an Authorization: Bearer token')
  }
  const space = header.indexOf(' ')
  if ((space === -1 ? header : header.slice(0, space)).toLowerCase() !== 'bearer') {
    // Another scheme (Basic...) is no bearer credential at all: a bare challenge, not an error.
    throw missingCredential('The Authorization header must use the Bearer scheme')
  }
  if (space === -1) throw invalidRequest('The Authorization header is malformed')
  const token = header.slice(space + 1).trimStart()
  // Header values are latin1 strings: one character is one byte.
  if (token.length > maxBytes) throw invalidToken(`The token is larger than ${maxBytes} bytes`)
  if (!B64TOKEN.test(token)) throw invalidRequest('The Authorization header is malformed')
  return token
}

/** Scopes from `scope` (space-separated, RFC 8693 / RFC 9068) or `scp` (a list, or a string). */
export function scopesOf (claims: Record<string, unknown>): string[] {
  const raw = claims.scope ?? claims.scp
  if (typeof raw === 'string') return raw.split(' ').filter((s) => s !== '')
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string')
  return []
}

export function audienceMatches (aud: unknown, expected: string): boolean {
  return aud === expected || (Array.isArray(aud) && aud.includes(expected))
}

/**
 * The principal of verified claims. Its identity is structured (see {@link Principal}): a token
 * with `sub` names a user of its issuer; one without `sub` but with `client_id` names a client
 * (RFC 9068 §2.2 tokens carry the client id as `sub` themselves, and stay users), and never
 * matches a user of the same name. The issuer is `iss`, else `defaultIssuer`. Frozen: one
 * principal is shared by every request that presents the same cached token.
 */
export function principalFromClaims (method: Principal['method'], claims: Record<string, unknown>, defaultIssuer?: string): Principal {
  const sub = nonEmpty(claims.sub)
  const clientId = nonEmpty(claims.client_id)
  const subject = sub ?? clientId
  if (subject === undefined) throw invalidToken('The token has no subject')
  const issuer = nonEmpty(claims.iss) ?? defaultIssuer
  const principal: Principal = {
    method,
    kind: sub === undefined ? 'client' : 'user',
    subject,
    scopes: Object.freeze(scopesOf(claims)),
    claims: Object.freeze({ ...claims })
  }
  if (issuer !== undefined) principal.issuer = issuer
  if (typeof claims.exp === 'number') principal.expiresAt = claims.exp * 1000
  return Object.freeze(principal)
}

function nonEmpty (value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Until when a verified token may be served from cache: its `exp`, capped. */
export function cacheUntil (principal: Principal, toleranceMs: number, now = Date.now()): number {
  const cap = now + VERIFIED_TOKEN_MAX_CACHE_MS
  return principal.expiresAt === undefined ? cap : Math.min(principal.expiresAt + toleranceMs, cap)
}

/**
 * `name="value"`. Values are fixed sentences and URLs built from a checked Host; `"` and `\`
 * (the only characters that could break out of the quoted string) are dropped all the same.
 */
export function param (name: string, value: string): string {
  return `${name}="${value.replace(/["\\]/g, '')}"`
}

/**
 * The challenge of a step-up (MCP "Scope Challenge Handling", RFC 6750 §3.1): `scopes` is every
 * scope the operation needs, held or not, so that one re-authorization is enough; the RFC 9728
 * metadata URL tells the client where to get them.
 */
export function scopeChallenge (scopes: readonly string[], resourceMetadata?: string): string {
  const parts = [param('error', 'insufficient_scope'), param('scope', scopes.join(' '))]
  if (resourceMetadata !== undefined) parts.push(param('resource_metadata', resourceMetadata))
  return `Bearer ${parts.join(', ')}`
}

/** `error` and `error_description`, only when a credential was presented (RFC 6750 §3.1). */
export function errorParams (failure: AuthFailure): string[] {
  return failure.presented ? [param('error', failure.oauthError), param('error_description', failure.message)] : []
}

/**
 * The one place a refusal is answered: status, challenge, RFC 6750-style body. The body holds the
 * fixed description only; nothing from the request is echoed, and nothing is logged.
 */
export function sendAuthFailure (reply: FastifyReply, failure: AuthFailure, challenge: string): FastifyReply {
  reply.code(failure.statusCode).header('cache-control', 'no-store')
  if (failure.statusCode === 503) reply.header('retry-after', String(RETRY_AFTER_SECONDS))
  else reply.header('www-authenticate', challenge)
  return reply.send({ error: failure.oauthError, error_description: failure.message })
}
