import { isRecord } from '../../util/is-record.js'
import { describeValue } from './describe.js'
import type { OptionsProblem } from './problems.js'

// Some options are the caller's own objects: a task or event store, an ioredis client, an
// OpenTelemetry provider. They hold methods and connections, so they must not be cloned, checked
// by the schema, or frozen. Each is taken out first (a marker stands in its place, so the rules
// still see that it was given), checked for its methods here, and put back at the end as the
// very same object. The path to it is copied, never the caller's objects mutated.

/** Stands in for a live object while the options are cloned, checked and frozen. */
export const LIVE = '\u0000live object'

/**
 * How the resolver reports a value that is not an object: `got` says what it is, `missing` names
 * every method as missing, `rules` leaves it to the schema and the option's rules (a Redis URL).
 */
export type NonObjects = 'got' | 'missing' | 'rules'

/** An option whose value is a live object: where it sits, the methods it must have, what it is. */
export interface LiveObject {
  readonly path: readonly string[]
  readonly methods: readonly string[]
  /** What the object is, for messages: `an EventStore`. */
  readonly label: string
  readonly nonObjects: NonObjects
  /**
   * Checks an object given there instead of the method list, for an option that also takes
   * objects of its own shape (a configuration the library it is handed to reads as given).
   */
  readonly check?: ((value: object, path: string) => OptionsProblem[]) | undefined
  /** Only a function is taken out (the option also takes plain data, which the schema checks). */
  readonly functionsOnly?: boolean
}

/** A live object at `path`; see {@link NonObjects} for `nonObjects`, {@link LiveObject.check} for `check`. */
export function liveObject (path: readonly string[], methods: readonly string[], label: string, nonObjects: NonObjects = 'got', check?: LiveObject['check']): LiveObject {
  return { path, methods, label, nonObjects, check }
}

/**
 * A caller's function at `path` where the option also takes plain data (a predicate or a list of
 * matchers): the function is passed through untouched, anything else is left to the schema and
 * the option's rules.
 */
export function liveFunction (path: readonly string[], label: string): LiveObject {
  return { path, methods: [], label, nonObjects: 'rules', functionsOnly: true }
}

/** The options with their live objects taken out, the objects, and what is wrong with them. */
export interface TakenOut {
  readonly value: unknown
  readonly taken: ReadonlyArray<readonly [LiveObject, unknown]>
  readonly problems: OptionsProblem[]
}

/** Swaps each live object for {@link LIVE} (an `undefined` one is dropped) and checks it. */
export function takeOut (input: unknown, lives: readonly LiveObject[]): TakenOut {
  let value = input
  const taken: Array<readonly [LiveObject, unknown]> = []
  const problems: OptionsProblem[] = []
  for (const live of lives) {
    const parent = at(value, live.path.slice(0, -1))
    const key = live.path[live.path.length - 1] as string
    if (!isRecord(parent) || !(key in parent)) continue
    const given = parent[key]
    if (live.check !== undefined && isObject(given)) {
      problems.push(...live.check(given, live.path.join('.')))
    } else {
      const message = problemOf(live, given)
      if (message !== undefined) problems.push({ path: live.path.join('.'), message })
    }
    if (given === undefined) {
      value = withAt(value, live.path, undefined, false)
    } else if (live.functionsOnly === true ? typeof given === 'function' : isObject(given)) {
      taken.push([live, given])
      value = withAt(value, live.path, LIVE, false)
    }
  }
  return { value, taken, problems }
}

/** The resolved options with each live object back in its place; the copies on its path are frozen. */
export function putBack (resolved: unknown, taken: TakenOut['taken']): unknown {
  let value = resolved
  for (const [live, object] of taken) value = withAt(value, live.path, object, true)
  return value
}

/** One message for every live object: what was expected, then the missing methods or what was given. */
function problemOf (live: LiveObject, value: unknown): string | undefined {
  if (value === undefined || (!isObject(value) && live.nonObjects === 'rules')) return undefined
  const object = isObject(value)
  const missing = live.methods.filter((method) => !object || typeof (value as Record<string, unknown>)[method] !== 'function')
  if (missing.length === 0) return undefined
  const [only] = live.methods
  const expected = `expected ${live.label}, an object with ${live.methods.length === 1 ? `a ${only}() method` : `the methods ${live.methods.join(', ')}`}`
  if (!object && live.nonObjects === 'got') return `${expected}, got ${describeValue(value, live.path.join('.'))}`
  if (object && live.methods.length === 1) return `${expected}, got an object without ${only}()`
  return `${expected}; missing: ${missing.join(', ')}`
}

function isObject (value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function'
}

function at (value: unknown, path: readonly string[]): unknown {
  let node = value
  for (const key of path) node = isRecord(node) ? node[key] : undefined
  return node
}

/**
 * A copy of `value` holding `leaf` at `path` (`undefined`: without the key), copying each record on
 * the path and no other; the copies are frozen when `freeze` (the resolved options are).
 */
function withAt (value: unknown, path: readonly string[], leaf: unknown, freeze: boolean): Record<string, unknown> {
  const [key, ...rest] = path as [string, ...string[]]
  const record = value as Record<string, unknown>
  const copy = { ...record, [key]: rest.length === 0 ? leaf : withAt(record[key], rest, leaf, freeze) }
  if (rest.length === 0 && leaf === undefined) delete copy[key]
  return freeze ? Object.freeze(copy) : copy
}
