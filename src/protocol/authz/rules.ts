import { InvalidDefinitionError } from '../../errors.js'
import { isRecord } from '../../util/is-record.js'
import type { Principal } from '../principal.js'

/** Where a rule is asked about: the operation, and what the predicate may want to know of it. */
export interface AccessContext {
  /** The method being authorized: `tools/call`, or `tools/list` while a list is filtered. */
  method: string
  /** The definition the rule guards: a tool or prompt name, a resource URI or URI template. */
  name: string
  /** The protocol version the request speaks. */
  protocolVersion: string
  /** The transport that carried the request. */
  transport: 'stdio' | 'sse' | 'streamable'
}

/**
 * Decides what scopes cannot say (a tenant, a role claim, an API key): `false` hides the
 * definition from this caller, who gets exactly the answer an unknown name gets. `principal` is
 * undefined without auth (stdio, HTTP without `auth`).
 */
export type AccessPredicate = (principal: Principal | undefined, ctx: AccessContext) => boolean | Promise<boolean>

/**
 * Who may use a tool, prompt, resource or resource template (`auth` on its definition, or the
 * server's `defaultAuth`). Never sent to clients.
 */
export interface AccessRule {
  /**
   * Scopes the caller's credential must all hold. Missing ones answer 403 with a
   * `WWW-Authenticate` step-up challenge naming every scope here (HTTP), -32005 on stdio. Without
   * auth no caller holds any scope: the definition is unreachable (the server says so at start).
   */
  scopes?: readonly string[]
  /** Anything scopes cannot say; see {@link AccessPredicate}. */
  allow?: AccessPredicate
}

/**
 * A budget of calls per client for one expensive definition (`rateLimit` on it): at most `max`
 * calls in each window of `timeWindow` milliseconds, counted per client (the identity with auth,
 * the address without; on stdio the one client). Past it: HTTP 429 with `Retry-After`, -32006 on stdio.
 */
export interface RateLimitRule {
  /** Calls allowed per window, ≥ 1. */
  max: number
  /** Length of the window, in milliseconds, ≥ 1. */
  timeWindow: number
}

/** A rule as checked: scopes frozen, or undefined when the rule has none. */
export interface CompiledRule {
  readonly scopes: readonly string[]
  readonly allow: AccessPredicate | undefined
}

// A scope is an RFC 6749 §3.3 scope-token: printable ASCII but space, `"` and `\`. The ban on `"`
// and `\` is what lets the 403 challenge quote the scopes without escaping.
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/
const RULE_KEYS = new Set(['scopes', 'allow'])
const LIMIT_KEYS = new Set(['max', 'timeWindow'])

/**
 * Checks an `auth` rule as given at registration (or as `defaultAuth`) and freezes what it holds;
 * undefined stays undefined. `where` names the definition in the error: `tool forecast`.
 */
export function compileRule (rule: unknown, what: string, where: string): CompiledRule | undefined {
  if (rule === undefined) return undefined
  if (!isRecord(rule)) throw new InvalidDefinitionError(what, `${where}: auth must be an object such as { scopes: ['files:read'] }`)
  for (const key of Object.keys(rule)) {
    if (!RULE_KEYS.has(key)) throw new InvalidDefinitionError(what, `${where}: auth has no option ${JSON.stringify(key)}; it takes scopes and allow`)
  }
  const { scopes, allow } = rule
  if (scopes === undefined && allow === undefined) throw new InvalidDefinitionError(what, `${where}: auth needs scopes, allow, or both`)
  if (allow !== undefined && typeof allow !== 'function') throw new InvalidDefinitionError(what, `${where}: auth.allow must be a function (principal, ctx) => boolean`)
  if (scopes !== undefined && (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((scope) => typeof scope === 'string' && SCOPE_TOKEN.test(scope)))) {
    throw new InvalidDefinitionError(what, `${where}: auth.scopes must be a non-empty array of scope tokens (no spaces, quotes or backslashes)`)
  }
  return Object.freeze({
    scopes: Object.freeze([...new Set((scopes ?? []) as string[])]),
    allow: allow as AccessPredicate | undefined
  })
}

/** Checks a definition's `rateLimit`; undefined stays undefined. */
export function compileRateLimit (limit: unknown, what: string, where: string): RateLimitRule | undefined {
  if (limit === undefined) return undefined
  if (!isRecord(limit)) throw new InvalidDefinitionError(what, `${where}: rateLimit must be an object such as { max: 10, timeWindow: 60000 }`)
  for (const key of Object.keys(limit)) {
    if (!LIMIT_KEYS.has(key)) throw new InvalidDefinitionError(what, `${where}: rateLimit has no option ${JSON.stringify(key)}; it takes max and timeWindow`)
  }
  const { max, timeWindow } = limit
  if (!Number.isSafeInteger(max) || (max as number) < 1) throw new InvalidDefinitionError(what, `${where}: rateLimit.max must be an integer ≥ 1`)
  if (!Number.isSafeInteger(timeWindow) || (timeWindow as number) < 1) throw new InvalidDefinitionError(what, `${where}: rateLimit.timeWindow must be an integer number of milliseconds ≥ 1`)
  return Object.freeze({ max: max as number, timeWindow: timeWindow as number })
}

/** The scopes of `rule` that `principal` does not hold; empty when it holds them all. */
export function missingScopes (rule: CompiledRule, principal: Principal | undefined): string[] {
  if (rule.scopes.length === 0) return []
  const held = principal?.scopes ?? []
  return rule.scopes.filter((scope) => !held.includes(scope))
}
