import { KindGuard, type TSchema } from '@sinclair/typebox'

// Messages say what was expected and what was given. What was given is never quoted when it is a
// credential: secrets are described by their length (or type) only.

/** The option names whose values are credentials (`auth.options.secret`, `scaleOut.redis` URLs...). */
const SECRET_KEYS = new Set(['secret', 'keys', 'clientSecret', 'publicKey', 'redis'])

/** True when the value at this path is a credential, which a message must never show. */
export function isSecretPath (path: string): boolean {
  const last = path.split('.').pop() ?? ''
  return SECRET_KEYS.has(last.replace(/\[\d+\]$/, ''))
}

/** A short description of a value for "got ..."; secrets are described by length only. */
export function describeValue (value: unknown, path: string): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`
  if (typeof value === 'string') {
    if (isSecretPath(path)) return `a string of ${value.length} character${value.length === 1 ? '' : 's'}`
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)
  }
  if (isSecretPath(path)) return `a ${typeof value}`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'object') return 'an object'
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`
}

/** Words for string patterns, keyed by the pattern: `a path starting with "/"`. */
export type PatternWords = Readonly<Record<string, string>>

/** What a schema expects, in words: "an integer from 0 to 65535". */
export function describe (schema: TSchema, patterns: PatternWords): string {
  if (KindGuard.IsLiteral(schema)) return JSON.stringify(schema.const)
  if (KindGuard.IsUnion(schema)) {
    return schema.anyOf.every((v) => KindGuard.IsLiteral(v))
      ? `one of ${schema.anyOf.map((v) => describe(v, patterns)).join(', ')}`
      : schema.anyOf.map((v) => describe(v, patterns)).join(' or ')
  }
  if (KindGuard.IsString(schema)) {
    if (schema.pattern !== undefined) return patterns[schema.pattern] ?? `a string matching /${schema.pattern}/`
    const min = schema.minLength ?? 0
    if (min <= 1) return min === 1 ? 'a non-empty string' : 'a string'
    return `a string of at least ${min} characters`
  }
  if (KindGuard.IsInteger(schema) || KindGuard.IsNumber(schema)) {
    const kind = KindGuard.IsInteger(schema) ? 'an integer' : 'a number'
    const { minimum: min, maximum: max } = schema
    if (min !== undefined && max !== undefined) return `${kind} from ${min} to ${max}`
    if (min !== undefined) return `${kind} of at least ${min}`
    return max === undefined ? kind : `${kind} of at most ${max}`
  }
  if (KindGuard.IsBoolean(schema)) return 'true or false'
  if (KindGuard.IsArray(schema)) {
    const min = schema.minItems ?? 0
    return `a ${min > 0 ? 'non-empty ' : ''}list of ${plural(describe(schema.items, patterns))}`
  }
  if (KindGuard.IsObject(schema)) return 'an object'
  /* c8 ignore next 2: defensive, every kind the option schemas use is described above */
  return 'a valid value'
}

function plural (description: string): string {
  if (description.startsWith('one of ')) return `values, each ${description}`
  return description.replace(/^an? (non-empty )?string/, (_, ne: string | undefined) => `${ne ?? ''}strings`)
}
