import type { TObject } from '@sinclair/typebox'
import { Value, ValueErrorType, type ValueError } from '@sinclair/typebox/value'
import { InvalidOptionsError } from '../../errors.js'
import { isRecord } from '../../util/is-record.js'
import { describe, describeValue, type PatternWords } from './describe.js'
import { closest } from './did-you-mean.js'
import { putBack, takeOut, type LiveObject } from './live.js'
import { join, merge, type OptionsProblem } from './problems.js'
import { chooseVariants } from './variants.js'

/** The error thrown by the resolvers: one line per problem in `message`, the same list in `problems`. */
export type InvalidOptions = ReturnType<typeof InvalidOptionsError> & { problems: readonly OptionsProblem[] }

/** One kind of options (the server's, the plugin's): everything the resolver needs to know of it. */
export interface OptionsRoot {
  readonly schema: TObject
  /** Cross-field and security rules, run on the defaulted options even when the schema found problems. */
  readonly rules: (options: unknown) => OptionsProblem[]
  readonly live: readonly LiveObject[]
  /** Keys that belong to someone else (Fastify's register options): dropped, never checked. */
  readonly foreign: readonly string[]
  /** Words for the schema's string patterns, for "expected ...". */
  readonly patterns: PatternWords
}

/**
 * Validates `input` against `root` and fills every default. `undefined` is `{}`. Never mutates
 * `input`; returns a deep-frozen object with the live objects put back as given; throws one
 * {@link InvalidOptionsError} listing every problem, sorted by path.
 */
export function resolveOptions (root: OptionsRoot, input: unknown): unknown {
  const { value, taken, problems: liveProblems } = takeOut(input === undefined ? {} : input, root.live)
  const copy: unknown = Value.Clone(value)
  if (isRecord(copy)) for (const key of root.foreign) delete copy[key]
  const problems: OptionsProblem[] = []
  const chosen = chooseVariants(root.schema, copy, '', problems)
  const defaulted: unknown = Value.Default(chosen, copy)
  const seen = new Set(problems.map((p) => p.path))
  for (const error of Value.Errors(chosen, defaulted)) {
    const problem = fromSchemaError(error, defaulted, root.patterns)
    if (seen.has(problem.path)) continue // one line per path: the first error is the most basic
    seen.add(problem.path)
    problems.push(problem)
  }
  // Sorted by path so the problems of one option block read together; the sort is stable.
  const all = merge(problems, [...root.rules(defaulted), ...liveProblems]).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  if (all.length > 0) {
    const lines = all.map((p) => `  ${p.path === '' ? '(options)' : p.path}: ${p.message}`).join('\n')
    const error = Object.assign(new InvalidOptionsError(lines), { problems: all }) satisfies InvalidOptions
    throw error
  }
  return putBack(deepFreeze(defaulted), taken)
}

function fromSchemaError (error: ValueError, root: unknown, patterns: PatternWords): OptionsProblem {
  const path = toDotted(error.path, root)
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const key = error.path.slice(error.path.lastIndexOf('/') + 1).replaceAll('~1', '/').replaceAll('~0', '~')
    const guess = closest(key, Object.keys((error.schema as TObject).properties))
    return { path, message: `unknown option${guess === undefined ? '' : ` (did you mean "${guess}"?)`}` }
  }
  if (error.type === ValueErrorType.ObjectRequiredProperty) {
    return { path, message: `required: expected ${describe(error.schema, patterns)}` }
  }
  return { path, message: `expected ${describe(error.schema, patterns)}, got ${describeValue(error.value, path)}` }
}

/** `/transport/options/keys/0` -> `transport.options.keys[0]`, using the value to tell indexes. */
function toDotted (pointer: string, root: unknown): string {
  let path = ''
  let node = root
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(node)) {
      path = join(path, Number(key))
      node = node[Number(key)]
    } else {
      path = join(path, key)
      node = isRecord(node) ? node[key] : undefined
    }
  }
  return path
}

function deepFreeze<T> (value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
  }
  return value
}
