import t from 'tap'
import { Type } from '../../src/index.js'
import { Registry } from '../../src/protocol/registry.js'
import { compileUriTemplate } from '../../src/protocol/uri-template.js'

const noop = async (): Promise<{ content: [] }> => ({ content: [] })

t.test('bad tool definitions are refused with a coded error', async (t) => {
  const registry = new Registry()
  const cases: Array<[string, () => unknown, RegExp]> = [
    ['not an object', () => registry.tool(null as never, noop), /the definition must be an object/],
    ['no handler', () => registry.tool({ name: 'x' }, 'nope' as never), /handler must be a function/],
    ['empty name', () => registry.tool({ name: '' }, noop), /name must be 1-128 characters/],
    ['name with spaces', () => registry.tool({ name: 'two words' }, noop), /name must be 1-128 characters/],
    ['name too long', () => registry.tool({ name: 'x'.repeat(129) }, noop), /name must be 1-128 characters/],
    ['inputSchema not an object schema', () => registry.tool({ name: 'x', inputSchema: Type.String() as never }, noop), /inputSchema must be a JSON Schema with type "object"/],
    // Any JSON Schema may describe structured results since 2026-07-28 (SEP-2106): only a non-schema is refused.
    ['outputSchema not a JSON Schema object', () => registry.tool({ name: 'x', outputSchema: [] as never }, noop), /outputSchema must be a JSON Schema object/]
  ]
  for (const [label, register, message] of cases) {
    t.throws(register, { code: 'FST_MCP_INVALID_DEFINITION', message }, label)
  }
  registry.tool({ name: 'x' }, noop)
  t.throws(() => registry.tool({ name: 'x' }, noop), { code: 'FST_MCP_DUPLICATE_DEFINITION', message: 'A tool named "x" is already registered' })
})

t.test('bad resource and prompt definitions are refused', async (t) => {
  const registry = new Registry()
  const read = async (uri: string): Promise<{ contents: [] }> => { void uri; return { contents: [] } }
  t.throws(() => registry.resource({ uri: 'relative/path', name: 'x' }, read), { code: 'FST_MCP_INVALID_DEFINITION', message: /absolute URI/ })
  t.throws(() => registry.resource({ uri: 'a://b', name: '' }, read), { code: 'FST_MCP_INVALID_DEFINITION', message: /name must be a non-empty string/ })
  t.throws(() => registry.resource({ uri: 'a://{x}', name: 'x', complete: { y: () => [] } as never }, read), { message: /complete\.y names no variable/ })
  t.throws(() => registry.resource({ uri: 'a://{x}', name: 'x', complete: { x: 'nope' } as never }, read), { code: 'FST_MCP_INVALID_DEFINITION', message: /complete\.x must be a function/ })
  t.throws(() => registry.prompt({ name: 'p', arguments: [{ name: 'a', complete: 42 as never }] }, async () => ({ messages: [] })), { message: /argument a: complete must be a function/ })
  registry.resource({ uri: 'a://b', name: 'b' }, read)
  t.throws(() => registry.resource({ uri: 'a://b', name: 'again' }, read), { code: 'FST_MCP_DUPLICATE_DEFINITION' })
  t.throws(() => registry.prompt({ name: '' }, async () => ({ messages: [] })), { code: 'FST_MCP_INVALID_DEFINITION' })
  t.throws(() => registry.prompt({ name: 'p', arguments: 'x' as never }, async () => ({ messages: [] })), { message: /arguments must be an array/ })
  t.throws(() => registry.prompt({ name: 'p', arguments: [{ name: 'a' }, { name: 'a' }] }, async () => ({ messages: [] })), { message: /unique non-empty name/ })
  registry.prompt({ name: 'p' }, async () => ({ messages: [] }))
  t.throws(() => registry.prompt({ name: 'p' }, async () => ({ messages: [] })), { code: 'FST_MCP_DUPLICATE_DEFINITION' })
})

t.test('registrations announce changes and can be removed', async (t) => {
  const registry = new Registry()
  const changes: string[] = []
  registry.onChange((kind) => changes.push(kind))
  const tool = registry.tool({ name: 't' }, noop)
  const resource = registry.resource({ uri: 'a://{x}', name: 'a' }, async (uri) => ({ contents: [{ uri, text: '' }] }))
  const prompt = registry.prompt({ name: 'p' }, async () => ({ messages: [] }))
  tool.remove()
  tool.remove()
  resource.remove()
  prompt.remove()
  t.same(changes, ['tools', 'resources', 'prompts', 'tools', 'resources', 'prompts'], 'a second remove() announces nothing')
  t.equal(registry.tools.size + registry.templates.size + registry.prompts.size, 0)
})

t.test('the wire form of a TypeBox schema is plain JSON', async (t) => {
  const registry = new Registry()
  const schema = Type.Object({ city: Type.String({ description: 'City' }) })
  registry.tool({ name: 'w', inputSchema: schema }, noop)
  const wire = registry.tools.get('w')?.wire.inputSchema as object
  t.same(Object.getOwnPropertySymbols(wire), [], 'no TypeBox symbols')
  t.same(wire, { type: 'object', properties: { city: { type: 'string', description: 'City' } }, required: ['city'] })
  t.ok(Object.getOwnPropertySymbols(schema).length > 0, "the caller's schema is left as it was")
})

t.test('draft-07 and 2020-12 schemas are both validated', async (t) => {
  const registry = new Registry()
  registry.tool({ name: 'd7', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer' } } } }, noop)
  registry.tool({ name: 'd20', inputSchema: { type: 'object', properties: { list: { type: 'array', prefixItems: [{ type: 'string' }], items: false } } } }, noop)
  registry.tool({ name: 'fmt', inputSchema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } } }, noop)
  t.equal(registry.tools.get('d7')?.validateInput({ n: 1 }), undefined)
  t.match(registry.tools.get('d7')?.validateInput({ n: 1.5 }), /arguments\.n: must be integer/)
  t.equal(registry.tools.get('d20')?.validateInput({ list: ['a'] }), undefined)
  t.match(registry.tools.get('d20')?.validateInput({ list: ['a', 'b'] }), /arguments\.list/, 'prefixItems + items:false (2020-12) enforced')
  t.match(registry.tools.get('fmt')?.validateInput({ at: 'yesterday' }), /must match format "date-time"/)
  const many = { type: 'object', properties: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, { type: 'string' }])) }
  registry.tool({ name: 'many', inputSchema: many }, noop)
  t.match(registry.tools.get('many')?.validateInput(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}`, 1]))), /\(and 2 more\)$/, 'long error lists are capped')
})

t.test('URI templates', async (t) => {
  const simple = compileUriTemplate('docs://{section}/{page}.md')
  t.same(simple.variables, ['section', 'page'])
  t.same(simple.match('docs://guide/intro%20one.md'), { section: 'guide', page: 'intro one' }, 'simple expansion is percent-decoded')
  t.equal(simple.match('docs://a/b/c.md'), undefined, '{var} does not span "/"')
  t.same(simple.match('docs://x/%E0%A4%A.md'), { section: 'x', page: '%E0%A4%A' }, 'a malformed escape is kept as sent')
  const reserved = compileUriTemplate('files://{+path}')
  t.same(reserved.match('files://a/b%20c'), { path: 'a/b%20c' }, 'reserved expansion keeps escapes')
  t.same(compileUriTemplate('x://(a).{b}').match('x://(a).1'), { b: '1' }, 'regexp characters in the literal part are literal')
  t.equal(compileUriTemplate('x://(a).{b}').match('x://Za.1'), undefined)
})
