import createError, { type FastifyErrorConstructor } from '@fastify/error'

// TODO(lead): fold these into src/errors.ts with the other coded errors.
//
// The guard answers failures itself (status, WWW-Authenticate challenge and an RFC 6750 body);
// these coded errors carry what that answer needs, so every refusal goes through one function
// (`sendAuthFailure` in challenge.ts). Their messages are fixed sentences: they never contain the
// presented token or key, nor any configured secret, because the message becomes
// `error_description`.

/** RFC 6750 §3.1 error codes (plus `temporarily_unavailable` for a 503 while a peer is down). */
export type OAuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable'

/** Missing, malformed or invalid credential: 401. */
export const UnauthorizedError = createError<'FST_MCP_UNAUTHORIZED', 401, [string]>('FST_MCP_UNAUTHORIZED', '%s', 401)
/** A malformed Authorization header, or a token sent where tokens are refused (query string): 400. */
export const InvalidAuthRequestError = createError<'FST_MCP_INVALID_AUTH_REQUEST', 400, [string]>(
  'FST_MCP_INVALID_AUTH_REQUEST', '%s', 400)
/** A valid token without the scopes the server requires: 403. */
export const InsufficientScopeError = createError<'FST_MCP_INSUFFICIENT_SCOPE', 403, [string]>(
  'FST_MCP_INSUFFICIENT_SCOPE', 'The token lacks the required scope: %s', 403)
/** The key set or the authorization server could not be reached and nothing cached helps: 503. */
export const AuthUnavailableError = createError<'FST_MCP_AUTH_UNAVAILABLE', 503, [string]>(
  'FST_MCP_AUTH_UNAVAILABLE', '%s', 503)
/** Boot: the OAuth authorization server metadata could not be discovered. Names the issuer, never the secret. */
export const AuthDiscoveryFailedError = createError<'FST_MCP_AUTH_DISCOVERY_FAILED', 500, [string, string]>(
  'FST_MCP_AUTH_DISCOVERY_FAILED', 'Could not discover the OAuth authorization server of %s: %s', 500)

/** A refusal the guard turns into an HTTP answer. */
export interface AuthFailure extends Error {
  code: string
  statusCode: number
  /** RFC 6750 error code for the body and the challenge. */
  oauthError: OAuthErrorCode
  /**
   * Whether the request carried a credential. RFC 6750 §3.1: a request without any gets a bare
   * challenge (no `error` attribute), so a client knows to authenticate rather than to retry.
   */
  presented: boolean
}

type Ctor = FastifyErrorConstructor<{ code: string, statusCode?: number }, [string]>

function make (ctor: Ctor, oauthError: OAuthErrorCode, description: string, presented: boolean): AuthFailure {
  // The message is also the public error_description: keep it free of `"` and `\` (RFC 6750 §3).
  return Object.assign(new ctor(description), { oauthError, presented }) as AuthFailure
}

/** 401: no credential was sent at all. */
export const missingCredential = (description: string): AuthFailure =>
  make(UnauthorizedError, 'invalid_token', description, false)
/** 401: the credential is not acceptable. */
export const invalidToken = (description: string): AuthFailure =>
  make(UnauthorizedError, 'invalid_token', description, true)
/** 400: the request is malformed (RFC 6750 §3.1 invalid_request). */
export const invalidRequest = (description: string): AuthFailure =>
  make(InvalidAuthRequestError, 'invalid_request', description, true)
/** 403: the scopes are missing; `scope` is the space-separated list the server requires. */
export const insufficientScope = (scope: string): AuthFailure =>
  make(InsufficientScopeError, 'insufficient_scope', scope, true)
/** 503: a peer (key set, authorization server) is down and nothing cached answers. */
export const unavailable = (description: string): AuthFailure =>
  make(AuthUnavailableError, 'temporarily_unavailable', description, true)

export function isAuthFailure (error: unknown): error is AuthFailure {
  return error instanceof Error && typeof (error as Partial<AuthFailure>).oauthError === 'string'
}
