import { Type, type Static } from '@sinclair/typebox'
import type { AccessPredicate } from '../protocol/authz/rules.js'
import { liveObject } from './engine/live.js'
import { Live, strict } from './engine/schema.js'

// Authorization beyond the door: the default access rule of definitions, and the per-client budget
// of JSON-RPC requests over HTTP. Per-definition rules and budgets are given at registration.

/** An RFC 6749 scope-token: printable ASCII but space, `"` and `\`. */
const SCOPE_PATTERN = '^[\\x21\\x23-\\x5B\\x5D-\\x7E]+$'
export const AUTHZ_PATTERN_WORDS = { [SCOPE_PATTERN]: 'a scope (printable ASCII without spaces, quotes or backslashes)' }

const DefaultAuthSchema = Type.Object({
  /** Scopes every caller's credential must hold to use a definition without its own `auth`. */
  scopes: Type.Optional(Type.Array(Type.String({ pattern: SCOPE_PATTERN }), { minItems: 1 })),
  /** A predicate `(principal, ctx) => boolean | Promise<boolean>` for what scopes cannot say; false hides the definition. */
  allow: Type.Optional(Live<AccessPredicate>())
}, strict)

const RateLimitSchema = Type.Object({
  /** JSON-RPC requests one client may send per window, ≥ 1. */
  max: Type.Integer({ minimum: 1 }),
  /** Length of the window, in milliseconds, ≥ 1. */
  timeWindow: Type.Integer({ minimum: 1 })
}, strict)
export type RateLimitOptions = Static<typeof RateLimitSchema>

/** The options of the server and the plugin about access rules. */
export const authzProperties = {
  /**
   * The access rule of every tool, prompt, resource and template registered without its own `auth`:
   * `{ scopes?, allow? }`, as on a definition. Unset = such definitions are open to every caller.
   */
  defaultAuth: Type.Optional(DefaultAuthSchema)
}

/** The HTTP options about request budgets. */
export const rateLimitProperties = {
  /**
   * Budget of JSON-RPC requests per client over HTTP (notifications and stream GETs are not
   * counted): at most `max` in each window of `timeWindow` ms. A client is its identity with `auth`,
   * its address without (as `maxSessionsPerClient` counts). Past it: 429 with `Retry-After` and
   * `x-ratelimit-*` headers. With `scaleOut` the budget is shared by every instance (Redis).
   * Unset = no budget.
   */
  rateLimit: Type.Optional(RateLimitSchema)
}

/** `defaultAuth.allow`: the caller's own function, passed through untouched. */
export const DEFAULT_AUTH_ALLOW = liveObject(['defaultAuth', 'allow'], [], 'a function')
