import t from 'tap'
import { Registry } from '../../src/protocol/registry.js'
import { compilesLater } from '../../src/protocol/compile-later.js'
import type { JsonSchema } from '../../src/protocol/definitions.js'
import { newEngine } from '../../src/protocol/validation.js'
// The benchmark catalog: 100 tools of nested objects, enums, arrays, patterns and `$ref`s.
// @ts-expect-error: a JavaScript module of the benchmarks, without types
import { catalogOf, argumentsOf } from '../../benchmarks/catalog/catalog.js'

interface CatalogTool { name: string, inputSchema: JsonSchema, outputSchema?: JsonSchema }
const catalog = catalogOf('large') as { tools: CatalogTool[] }
const noop = async (): Promise<{ content: [] }> => ({ content: [] })
const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}): JsonSchema => ({ type: 'object', properties, ...extra })

// Schemas Ajv refuses only when it compiles them: the meta-schema finds nothing wrong with any.
const refusedByCompile: Array<[string, JsonSchema, RegExp]> = [
  ['a $ref to no definition', object({ a: { $ref: '#/$defs/Nope' } }), /can't resolve reference #\/\$defs\/Nope/],
  ['a $ref to another document', object({ a: { $ref: 'https://example.com/s.json' } }), /can't resolve reference https:\/\/example\.com\/s\.json/],
  ['a $ref to no anchor', object({ a: { $ref: '#nowhere' } }), /can't resolve reference #nowhere/],
  ['a pattern that is no regular expression', object({ a: { type: 'string', pattern: '[' } }), /Invalid regular expression/],
  ['a patternProperties key that is no regular expression', object({}, { patternProperties: { '(': {} } }), /Invalid regular expression/],
  ['nullable without a type', object({ a: { nullable: true } }), /"nullable" cannot be used without "type"/]
]
// Schemas the meta-schema check refuses, which runs at registration whatever the walk says.
const refusedByMetaSchema: Array<[string, JsonSchema, RegExp]> = [
  ['a schema against its meta-schema', object({ a: { type: 'strng' } }), /schema is invalid: data\/properties\/a\/type/],
  ['an unknown $schema', { $schema: 'https://example.com/my-dialect', type: 'object' }, /no schema with key or ref "https:\/\/example\.com\/my-dialect"/],
  ['a draft older than 07', { $schema: 'http://json-schema.org/draft-04/schema#', type: 'object' }, /no schema with key or ref "http:\/\/json-schema\.org\/draft-04\/schema#"/],
  ['a $schema that is no string', { $schema: 7, type: 'object' } as unknown as JsonSchema, /\$schema must be a string/],
  ['a draft-07 schema against its meta-schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: 'a' }, /schema is invalid: data\/required must be array/]
]

t.test('every schema Ajv refuses is refused at registration, naming the tool and the field', async (t) => {
  for (const [what, schema, reason] of [...refusedByCompile, ...refusedByMetaSchema]) {
    const registry = new Registry()
    t.throws(() => registry.tool({ name: 'in', inputSchema: schema }, noop), { code: 'FST_MCP_INVALID_DEFINITION', message: /^Invalid tool definition: in: inputSchema: / }, `inputSchema: ${what}`)
    t.throws(() => registry.tool({ name: 'in', inputSchema: schema }, noop), { message: reason }, `inputSchema: ${what}: Ajv's reason`)
    t.throws(() => registry.tool({ name: 'out', outputSchema: schema }, noop), { code: 'FST_MCP_INVALID_DEFINITION', message: /^Invalid tool definition: out: outputSchema: / }, `outputSchema: ${what}`)
    t.equal(registry.tools.size, 0, `${what}: nothing registered`)
  }
})

t.test('what the walk cannot vouch for is compiled at registration', async (t) => {
  for (const [what, schema] of refusedByCompile) t.equal(compilesLater(schema), false, what)
  const eager: Array<[string, JsonSchema]> = [
    ['an $id (a new base URI)', object({ a: { $ref: 'a.json' } }, { $defs: { A: { $id: 'a.json', type: 'string' } } })],
    ['an $anchor', object({ a: { $ref: '#name' } }, { $defs: { A: { $anchor: 'name', type: 'string' } } })],
    ['a $dynamicRef', { $dynamicAnchor: 'node', type: 'object', properties: { a: { $dynamicRef: '#node' } } }],
    ['a nested $schema', object({ a: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'string' } })],
    ['a percent-encoded pointer', object({ a: { $ref: '#/$defs/A%20B' } }, { $defs: { 'A B': { type: 'string' } } })],
    ['a pointer to an array', object({ a: { $ref: '#/required' } }, { required: ['a'] })],
    ['$async', { $async: true, type: 'object' }]
  ]
  for (const [what, schema] of eager) t.equal(compilesLater(schema), false, what)
  const later: Array<[string, JsonSchema]> = [
    ['no reference at all', object({ a: { type: 'string', pattern: '^[a-z]+$' } })],
    ['a pointer into $defs', object({ a: { $ref: '#/$defs/A' } }, { $defs: { A: { type: 'string' } } })],
    ['a pointer with escapes', object({ a: { $ref: '#/$defs/a~1b~0c' } }, { $defs: { 'a/b~c': { type: 'string' } } })],
    ['a pointer into an array', object({ a: { $ref: '#/allOf/0' } }, { allOf: [{ required: [] }] })],
    ['a pointer to a boolean schema', object({ a: { $ref: '#/$defs/Any' } }, { $defs: { Any: true } })],
    ['the root', object({ child: { $ref: '#' } })],
    ['properties named id and nullable', object({ id: { type: 'string' }, nullable: { type: 'boolean' } })],
    ['draft-07 definitions', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { $ref: '#/definitions/A' } }, definitions: { A: { type: 'integer' } } }]
  ]
  for (const [what, schema] of later) t.equal(compilesLater(schema), true, what)
  for (const tool of catalog.tools) {
    t.equal(compilesLater(tool.inputSchema), true, `${tool.name}: inputSchema compiled at its first call`)
    if (tool.outputSchema !== undefined) t.equal(compilesLater(tool.outputSchema), true, `${tool.name}: outputSchema compiled at its first call`)
  }
})

t.test('a schema left for later always compiles: the walk never vouches for one Ajv refuses', async (t) => {
  // The engine tool schemas are compiled with (its meta-schema check is the registration's, so off).
  const ajv = newEngine('2020-12', { logger: false })
  // Every schema of this file, and each catalog schema with one of its `$ref`s or patterns broken.
  const corpus: JsonSchema[] = [...refusedByCompile, ...refusedByMetaSchema].map(([, schema]) => schema)
  const passesMetaSchema = (schema: JsonSchema): boolean => {
    try {
      return ajv.validateSchema(schema) === true
    } catch {
      return false
    }
  }
  for (const tool of catalog.tools) {
    corpus.push(tool.inputSchema)
    const text = JSON.stringify(tool.inputSchema)
    corpus.push(JSON.parse(text.replace('"#/$defs/', '"#/$defs/Missing')) as JsonSchema)
    corpus.push(JSON.parse(text.replace(/"pattern":"\^/, '"pattern":"(^')) as JsonSchema)
  }
  let later = 0
  for (const schema of corpus) {
    // Registration checks the meta-schema whatever the walk says: the rest is the walk's to vouch for.
    if (!compilesLater(schema) || !passesMetaSchema(schema)) continue
    later++
    t.doesNotThrow(() => ajv.compile(schema), JSON.stringify(schema).slice(0, 120))
  }
  t.ok(later >= 100 && later < corpus.length, `${later} of ${corpus.length} left for later`)
})

t.test('a validator compiled at its first call answers as one compiled at registration', async (t) => {
  const registry = new Registry()
  const eager = newEngine('2020-12', { logger: false })
  for (const tool of catalog.tools.slice(0, 20)) {
    registry.tool({ name: tool.name, inputSchema: tool.inputSchema }, noop)
    const validate = registry.tools.get(tool.name)?.validateInput
    const good = argumentsOf(tool) as Record<string, unknown>
    const bad = { ...good, [Object.keys(good)[0] ?? 'x']: { not: 'this' }, extra: 1 }
    for (const [label, value] of [['good', good], ['bad', bad]] as const) {
      t.equal(validate?.(value) === undefined, eager.validate(tool.inputSchema, value), `${tool.name}: ${label} arguments`)
    }
  }
})

t.test('registration compiles nothing the walk vouches for; the first call does', async (t) => {
  // Ajv warns about an unknown format when it compiles the schema: the warning shows when that happens.
  const warnings: string[] = []
  const warn = console.warn
  console.warn = (...args: unknown[]) => { warnings.push(args.map(String).join(' ')) }
  t.teardown(() => { console.warn = warn })
  const registry = new Registry()
  registry.tool({ name: 'fmt', inputSchema: object({ at: { type: 'string', format: 'no-such-format' } }) }, noop)
  t.same(warnings, [], 'not compiled at registration')
  t.equal(registry.tools.get('fmt')?.validateInput({ at: 'x' }), undefined)
  t.match(warnings, [/unknown format "no-such-format" ignored/], 'compiled at the first call')
  const seen = warnings.length
  registry.tools.get('fmt')?.validateInput({ at: 'y' })
  t.equal(warnings.length, seen, 'and only then')
})
