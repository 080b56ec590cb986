import { ErrorCode, McpError } from '../../jsonrpc/errors.js'

/**
 * -32005: the caller lacks scopes the operation's rule requires. The same error on every transport;
 * over HTTP it is the body of a 403 whose `WWW-Authenticate` challenge names `required` (every
 * scope the operation needs, held or not: RFC 6750 §3.1, MCP "Scope Challenge Handling"), so a
 * client re-authorizes once with all of them.
 */
export class InsufficientScopeDenial extends McpError {
  readonly requiredScopes: readonly string[]
  readonly missingScopes: readonly string[]
  constructor (required: readonly string[], missing: readonly string[]) {
    super(ErrorCode.InsufficientScope, `Insufficient scope: this operation needs ${required.join(' ')}`, { requiredScopes: [...required], missingScopes: [...missing] })
    this.name = 'InsufficientScopeDenial'
    this.requiredScopes = required
    this.missingScopes = missing
  }
}

/**
 * -32006: the caller is over a rate limit. Over HTTP the body of a 429 with `Retry-After` and the
 * rate-limit headers; `retryAfterMs` is when the window that refused it ends.
 */
export class RateLimitedDenial extends McpError {
  readonly limit: number
  readonly windowMs: number
  readonly retryAfterMs: number
  constructor (limit: number, windowMs: number, retryAfterMs: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000))
    super(ErrorCode.RateLimited, `Rate limit exceeded: at most ${limit} requests per ${windowMs} ms; retry in ${seconds} s`, { limit, windowMs, retryAfterMs })
    this.name = 'RateLimitedDenial'
    this.limit = limit
    this.windowMs = windowMs
    this.retryAfterMs = retryAfterMs
  }
}

/** A request refused at the door, before any middleware or handler: what its transport answers with. */
export type Refusal = InsufficientScopeDenial | RateLimitedDenial
