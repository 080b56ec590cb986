import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { compilesLater } from './compile-later.js'
import type { JsonSchema } from './definitions.js'

// ajv-formats ships CommonJS; under NodeNext its default export arrives wrapped.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule) as unknown as (ajv: Ajv) => Ajv

/**
 * Compiles argument and output schemas once: at registration, or at first use when that loses no
 * error (compile-later.ts: the schema is then checked against its meta-schema at registration,
 * which throws what compiling would). MCP 2025-11-25
 * says a schema without `$schema` is JSON Schema 2020-12; older drafts that
 * declare themselves get the draft-07 engine.
 */
// ownProperties: arguments are client JSON; without it `required: ['constructor']` is met by
// Object.prototype.constructor, and an optional `valueOf` is "present" and fails its type.
const options = { strict: false, allErrors: true, allowUnionTypes: true, validateFormats: true, ownProperties: true }
let draft2020: Ajv | undefined
let draft07: Ajv | undefined

function engineFor (schema: JsonSchema): Ajv {
  const declared = typeof schema.$schema === 'string' ? schema.$schema : ''
  if (/draft-0[4-7]/.test(declared)) {
    draft07 ??= addFormats(new Ajv(options))
    return draft07
  }
  draft2020 ??= addFormats(new Ajv2020(options) as unknown as Ajv)
  return draft2020
}

export type Validator = (value: unknown) => string | undefined

/**
 * Returns a function that yields undefined for valid input, or a readable list of problems. Throws
 * Ajv's own error for a schema it refuses. The schema must not change afterwards: it may be
 * compiled at the first call.
 */
export function compileValidator (schema: JsonSchema, subject: string): Validator {
  const engine = engineFor(schema)
  let validate: ValidateFunction | undefined
  if (compilesLater(schema)) engine.validateSchema(schema, true)
  else validate = engine.compile(schema)
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
