import { createRequire } from 'node:module'
import type { ValidateFunction } from 'ajv'

/** The two JSON Schema dialects tool schemas are validated with. */
export type Dialect = '2020-12' | 'draft-07'

/** Each dialect's meta-schema, as `$schema` names it (a trailing `#` is the same id). */
export const META_SCHEMA_IDS: Readonly<Record<Dialect, string>> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema'
}

// Checking a tool schema against its meta-schema needs the meta-schema compiled, and Ajv takes
// 35-50 ms to compile 2020-12's (its vocabularies, `$dynamicRef`), on every start of every server
// with a tool. The two meta-schema validators are compiled ahead instead, as Fastify does for its
// own configuration: Ajv's standalone code, in lib/meta-schemas/, written by
// `node scripts/meta-schemas.js` with the options of the engines (validation.ts); a test fails
// when they differ from what the installed Ajv would write. Loading one takes some 4 ms.
// The path is the same from src/protocol/ and from dist/protocol/.
const require = createRequire(import.meta.url)
const loaded = new Map<Dialect, ValidateFunction>()

/**
 * The precompiled validator of `dialect`'s meta-schema, when `declared` (the schema's `$schema`)
 * names that meta-schema or nothing; undefined for any other `$schema`, which Ajv resolves itself.
 */
export function metaSchemaValidator (dialect: Dialect, declared: unknown): ValidateFunction | undefined {
  if (declared !== undefined && (typeof declared !== 'string' || declared.replace(/#$/, '') !== META_SCHEMA_IDS[dialect])) return undefined
  let validate = loaded.get(dialect)
  if (validate === undefined) {
    validate = require(`../../lib/meta-schemas/${dialect}.cjs`) as ValidateFunction
    loaded.set(dialect, validate)
  }
  return validate
}
