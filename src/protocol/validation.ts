import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { compilesLater } from './compile-later.js'
import type { JsonSchema } from './definitions.js'
import { metaSchemaValidator, type Dialect } from './meta-schemas.js'

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv

// Argument and output schemas are compiled once: at registration, or at first use when that loses
// no error (compile-later.ts); either way each is checked against its meta-schema at registration
// (meta-schemas.ts). MCP 2025-11-25 says a schema without `$schema` is JSON Schema 2020-12; older
// drafts that declare themselves get the draft-07 engine.
// ownProperties: arguments are client JSON; without it `required: ['constructor']` is met by
// Object.prototype.constructor, and an optional `valueOf` is "present" and fails its type.
// validateSchema: false, because checkSchema does it with the precompiled meta-schemas.
const options = { strict: false, allErrors: true, allowUnionTypes: true, validateFormats: true, ownProperties: true, validateSchema: false }
const engines = new Map<Dialect, Ajv>()

/** A new engine for `dialect` with the options every tool schema is compiled with (`extra` for scripts/meta-schemas.js). */
export function newEngine (dialect: Dialect, extra: Record<string, unknown> = {}): Ajv {
  const settings = { ...options, ...extra }
  return addFormats(dialect === 'draft-07' ? new Ajv(settings) : new Ajv2020(settings) as unknown as Ajv)
}

function dialectOf (schema: JsonSchema): Dialect {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : ''
  return /draft-0[4-7]/.test(declared) ? 'draft-07' : '2020-12'
}

function engineOf (dialect: Dialect): Ajv {
  let engine = engines.get(dialect)
  if (engine === undefined) {
    engine = newEngine(dialect)
    engines.set(dialect, engine)
  }
  return engine
}

/** Throws what Ajv's compile would for a schema its meta-schema refuses. */
function checkSchema (engine: Ajv, dialect: Dialect, schema: JsonSchema): void {
  const meta = metaSchemaValidator(dialect, schema.$schema)
  // Another `$schema` (a vocabulary's meta-schema, an unknown one): Ajv resolves it, or throws.
  if (meta === undefined) {
    engine.validateSchema(schema, true)
    return
  }
  if (meta(schema) !== true) throw new Error(`schema is invalid: ${engine.errorsText(meta.errors)}`)
}

export type Validator = (value: unknown) => string | undefined

/**
 * Returns a function that yields undefined for valid input, or a readable list of problems. Throws
 * Ajv's own error for a schema it refuses. The schema must not change afterwards: it may be
 * compiled at the first call.
 */
export function compileValidator (schema: JsonSchema, subject: string): Validator {
  const dialect = dialectOf(schema)
  const engine = engineOf(dialect)
  checkSchema(engine, dialect, schema)
  let validate: ValidateFunction | undefined
  if (!compilesLater(schema)) validate = engine.compile(schema)
  return (value) => {
    validate ??= engine.compile(schema)
    return validate(value) ? undefined : describeErrors(validate.errors ?? [], subject)
  }
}

function describeErrors (errors: ErrorObject[], subject: string): string {
  const lines = errors.slice(0, 10).map((error) => {
    const path = error.instancePath === '' ? subject : `${subject}${error.instancePath.replaceAll('/', '.')}`
    if (error.keyword === 'additionalProperties') {
      return `${path}: unknown property "${String(error.params.additionalProperty)}"`
    }
    if (error.keyword === 'required') return `${path}.${String(error.params.missingProperty)}: is required`
    return `${path}: ${error.message ?? 'is invalid'}`
  })
  if (errors.length > 10) lines.push(`(and ${errors.length - 10} more)`)
  return lines.join('; ')
}

/**
 * A TypeBox schema carries symbol keys; clients must see plain JSON. One
 * round-trip at registration gives the wire form, byte-identical to what a
 * plain JSON Schema user would have passed.
 */
export function toWireSchema (schema: object): JsonSchema {
  return JSON.parse(JSON.stringify(schema)) as JsonSchema
}
