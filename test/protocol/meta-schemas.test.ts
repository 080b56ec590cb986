import t from 'tap'
import { execFile } from 'node:child_process'
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { JsonSchema } from '../../src/protocol/definitions.js'
import { META_SCHEMA_IDS, metaSchemaValidator, type Dialect } from '../../src/protocol/meta-schemas.js'
import { newEngine } from '../../src/protocol/validation.js'
import { ensureBuilt } from '../helpers/built.js'
// @ts-expect-error: a JavaScript module of the benchmarks, without types
import { catalogOf } from '../../benchmarks/catalog/catalog.js'

const script = fileURLToPath(new URL('../../scripts/meta-schemas.js', import.meta.url))
const generated = fileURLToPath(new URL('../../lib/meta-schemas/', import.meta.url))
const run = promisify(execFile)

t.test('lib/meta-schemas holds what the installed Ajv writes, and the check sees a difference', async (t) => {
  ensureBuilt()
  const { stderr } = await run(process.execPath, [script, '--check'])
  t.equal(stderr, '', 'in step with Ajv')
  const copy = t.testdir()
  cpSync(generated, copy, { recursive: true })
  const file = `${copy}/2020-12.cjs`
  writeFileSync(file, readFileSync(file, 'utf8').replace('"minLength"', '"minLen"'))
  const stale = await run(process.execPath, [script, '--check', '--dir', copy]).then(() => undefined, (error: { code: number, stderr: string }) => error)
  t.equal(stale?.code, 1, 'a changed file fails the check')
  t.match(stale?.stderr, /2020-12\.cjs is not what the installed Ajv writes: run `npm run build && node scripts\/meta-schemas\.js`/)
})

t.test('a precompiled meta-schema answers as Ajv compiling it: verdict and errors', async (t) => {
  const catalog = catalogOf('large') as { tools: Array<{ inputSchema: JsonSchema, outputSchema?: JsonSchema }> }
  const corpus: JsonSchema[] = [
    ...catalog.tools.flatMap((tool) => tool.outputSchema === undefined ? [tool.inputSchema] : [tool.inputSchema, tool.outputSchema]),
    { type: 'strng' },
    { type: 'object', properties: { a: { type: 'string', minLength: -1 } } },
    { type: 'object', required: 'a' },
    { type: 'array', items: [{ type: 'string' }], prefixItems: 'x' },
    { type: 'object', properties: { a: { $ref: 7 } }, $defs: { A: { enum: [] } } },
    { type: 'object', properties: { a: { type: 'string', format: 3, pattern: {} } } },
    { anyOf: [], allOf: {}, not: 'x', const: null, dependentRequired: { a: [1] } }
  ]
  for (const dialect of Object.keys(META_SCHEMA_IDS) as Dialect[]) {
    // Ajv's own check, the meta-schema compiled at run time.
    const ajv = newEngine(dialect, { validateSchema: true })
    const precompiled = metaSchemaValidator(dialect, undefined)
    let refused = 0
    for (const schema of corpus) {
      const valid = ajv.validateSchema(schema) === true
      const expected = valid ? '' : ajv.errorsText(ajv.errors)
      const answered = precompiled?.(schema) === true
      t.equal(answered, valid, `${dialect}: ${JSON.stringify(schema).slice(0, 80)}`)
      if (!valid) {
        refused++
        t.equal(ajv.errorsText(precompiled?.errors), expected, `${dialect}: the same errors`)
      }
    }
    t.ok(refused >= 6, `${dialect}: ${refused} refused`)
  }
})

t.test('the precompiled validator serves a schema naming its own meta-schema, or none', async (t) => {
  t.ok(metaSchemaValidator('2020-12', undefined))
  t.equal(metaSchemaValidator('2020-12', 'https://json-schema.org/draft/2020-12/schema#'), metaSchemaValidator('2020-12', undefined), 'with a trailing #')
  t.ok(metaSchemaValidator('draft-07', 'http://json-schema.org/draft-07/schema#'))
  t.equal(metaSchemaValidator('2020-12', 'https://json-schema.org/draft/2020-12/meta/core'), undefined, 'a vocabulary is left to Ajv')
  t.equal(metaSchemaValidator('draft-07', 'http://json-schema.org/draft-04/schema#'), undefined, 'another draft is left to Ajv')
  t.equal(metaSchemaValidator('2020-12', 42), undefined, 'so is a $schema that is no string')
})
