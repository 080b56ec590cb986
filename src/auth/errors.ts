import type { FastifyErrorConstructor } from '@fastify/error'
import { AuthUnavailableError, InsufficientScopeError, InvalidAuthRequestError, UnauthorizedError } from '../errors.js'

export { AuthDiscoveryFailedError, AuthUnavailableError, InsufficientScopeError, InvalidAuthRequestError, UnauthorizedError } from '../errors.js'

// The guard answers failures itself (status, WWW-Authenticate challenge and an RFC 6750 body);
// these coded errors carry what that answer needs, so every refusal goes through one function
// (`sendAuthFailure` in strategy.ts). Their messages are fixed sentences: they never contain the
// presented token or key, nor any configured secret, because the message becomes
// `error_description`.

/** RFC 6750 §3.1 error codes (plus `temporarily_unavailable` for a 503 while a peer is down). */
export type OAuthErrorCode = 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable'

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

function make (ErrorClass: Ctor, oauthError: OAuthErrorCode, description: string, presented: boolean): AuthFailure {
  // The message is also the public error_description: keep it free of `"` and `\` (RFC 6750 §3).
  return Object.assign(new ErrorClass(description), { oauthError, presented }) as AuthFailure
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
