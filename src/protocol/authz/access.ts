import type { Principal } from '../principal.js'
import type { TransportKind } from '../session.js'
import { InsufficientScopeDenial } from './denials.js'
import { missingScopes, type AccessContext, type CompiledRule, type RateLimitRule } from './rules.js'

/** What a registry entry carries for authorization; never sent to clients. */
export interface Guarded {
  /** The name its rule is asked about and its budget counted under: tool or prompt name, resource URI or template. */
  readonly name: string
  /** Its own `auth` rule; undefined falls back to the server's `defaultAuth`. */
  readonly rule: CompiledRule | undefined
  readonly rateLimit: RateLimitRule | undefined
}

/** Where the rules of every definition are found: the registry. */
export interface RuleBook {
  /** True when any definition has a rule or a rate limit, or `defaultAuth` is set: else nothing is checked. */
  readonly gated: boolean
  /** The rule that applies to `entry`: its own, else the server's default. */
  ruleOf: (entry: Guarded) => CompiledRule | undefined
}

/**
 * The verdict on one definition for one caller: `true` (allowed), `false` (hidden: answered as an
 * unknown name), or the scope denial. The predicate is asked first, so that a definition hidden
 * from the caller never reveals, through a 403, the scopes it needs.
 */
export type Judgement = boolean | InsufficientScopeDenial

export function judge (rule: CompiledRule | undefined, principal: Principal | undefined, ctx: AccessContext): Judgement | Promise<Judgement> {
  if (rule === undefined) return true
  if (rule.allow === undefined) return scopeVerdict(rule, principal)
  const allowed = rule.allow(principal, ctx)
  if (allowed === true) return scopeVerdict(rule, principal)
  if (allowed === false) return false
  return Promise.resolve(allowed).then((yes) => yes === true ? scopeVerdict(rule, principal) : false)
}

function scopeVerdict (rule: CompiledRule, principal: Principal | undefined): Judgement {
  const missing = missingScopes(rule, principal)
  return missing.length === 0 ? true : new InsufficientScopeDenial(rule.scopes, missing)
}

/** A verdict the door reached for one transport request, on one definition, for one method. */
export interface DoorVerdict {
  readonly entry: Guarded
  readonly method: string
  readonly verdict: Judgement
}

/**
 * The door's verdicts, kept by the {@link Caller}-like object of the transport request they were
 * reached for (one HTTP request, one stdio line), so that the handler behind the door reuses the
 * verdict instead of asking the rule again: a predicate runs once per call (it may be a lookup
 * with a cost, or answer differently the second time). Weakly held: gone with the request.
 */
export class DoorVerdicts {
  private readonly byCaller = new WeakMap<object, DoorVerdict>()

  remember (caller: object, verdict: DoorVerdict): void {
    this.byCaller.set(caller, verdict)
  }

  of (caller: object): DoorVerdict | undefined {
    return this.byCaller.get(caller)
  }
}

/** Who asks, on what: the part of an {@link AccessContext} that is the same for every definition judged. */
export interface AccessCaller {
  readonly principal: Principal | undefined
  readonly method: string
  readonly protocolVersion: string
  readonly transport: TransportKind
  /** What the door decided for this request, reused when the handler judges the same definition for the same method. */
  readonly decided?: DoorVerdict | undefined
}

/**
 * The rules as one request sees them (`env.access` of the method handlers): whether it may use a
 * definition, and which entries of a list it may see. A request on a server without any rule
 * gets {@link OPEN_ACCESS}, which answers without looking.
 */
export interface RequestAccess {
  /** True when some rule may apply: a list that depends on who asks is private (2026-07-28 caching). */
  readonly gated: boolean
  /**
   * For an operation on `entry`: `true` to go on, `false` when it is hidden from the caller (the
   * handler answers as for an unknown name); throws the scope denial (-32005).
   */
  reach: (entry: Guarded) => true | Promise<boolean>
  /** Whether `entry` shows in the caller's lists: only what the caller may use. */
  shows: (entry: Guarded) => boolean | Promise<boolean>
  /** The entries of a list the caller may use, in order. */
  filter: <T extends Guarded>(entries: Iterable<T>) => Iterable<T> | Promise<T[]>
}

/** Every answer "yes", at the cost of a call: a server without rules. */
export const OPEN_ACCESS: RequestAccess = Object.freeze({
  gated: false,
  reach: () => true as const,
  shows: () => true,
  filter: <T extends Guarded>(entries: Iterable<T>) => entries
})

/** The access of one request on a server with rules. */
export function requestAccess (rules: RuleBook, caller: AccessCaller): RequestAccess {
  if (!rules.gated) return OPEN_ACCESS
  const judgeOf = (entry: Guarded): Judgement | Promise<Judgement> => {
    const rule = rules.ruleOf(entry)
    if (rule === undefined) return true
    const decided = caller.decided
    // The door judged this very definition for this method moments ago (middleware may have
    // changed the name since: then the entry differs and it is judged afresh).
    if (decided !== undefined && decided.entry === entry && decided.method === caller.method) return decided.verdict
    return judge(rule, caller.principal, { method: caller.method, name: entry.name, protocolVersion: caller.protocolVersion, transport: caller.transport })
  }
  const reach = (entry: Guarded): true | Promise<boolean> => {
    const verdict = judgeOf(entry)
    if (verdict === true) return true
    if (verdict instanceof Promise) return verdict.then(orThrow)
    return Promise.resolve(orThrow(verdict))
  }
  const shows = (entry: Guarded): boolean | Promise<boolean> => {
    const verdict = judgeOf(entry)
    return verdict instanceof Promise ? verdict.then((v) => v === true) : verdict === true
  }
  return {
    gated: true,
    reach,
    shows,
    filter: async <T extends Guarded>(entries: Iterable<T>): Promise<T[]> => {
      const all = [...entries]
      const visible = await Promise.all(all.map(shows))
      return all.filter((_entry, i) => visible[i])
    }
  }
}

function orThrow (verdict: Judgement): boolean {
  if (verdict instanceof InsufficientScopeDenial) throw verdict
  return verdict
}
