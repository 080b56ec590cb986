// JSON Schema 2020-12 everywhere (SEP-2106): any keyword in a tool's schemas, any JSON value as
// structuredContent on 2026-07-28 (and what older clients get instead), and the x-mcp-header
// annotations checked once, at registration.
import t from 'tap'
import type { FastifyInstance } from 'fastify'
import { headersFor, modern } from '../helpers/modern.js'
import { catalogApp } from '../helpers/serve.js'

const CONTACT = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { $anchor: 'addressDef', type: 'object', properties: { city: { type: 'string' } } } },
  properties: { address: { $ref: '#/$defs/address' }, contactMethod: { enum: ['phone', 'email'] }, phone: { type: 'string' }, email: { type: 'string' } },
  allOf: [{ anyOf: [{ required: ['phone'] }, { required: ['email'] }] }],
  if: { properties: { contactMethod: { const: 'phone' } }, required: ['contactMethod'] },
  then: { required: ['phone'] },
  else: { required: ['email'] },
  additionalProperties: false
}

async function modernCall (app: FastifyInstance, body: Record<string, unknown>): Promise<any> {
  return (await app.inject({ method: 'POST', url: '/mcp', headers: headersFor(body), payload: body })).json()
}

async function legacySession (app: FastifyInstance): Promise<(id: number, method: string, params?: Record<string, unknown>) => Promise<any>> {
  const init = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'old', version: '1' } } } })
  const session = String(init.headers['mcp-session-id'])
  return async (id, method, params) => (await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': session }, payload: { jsonrpc: '2.0', id, method, params } })).json()
}

t.test('2020-12 keywords reach clients as written and validate arguments', async (t) => {
  const app = await catalogApp(t)
  app.mcp.tool({ name: 'contact', inputSchema: CONTACT }, async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }))
  const listed = (await modernCall(app, modern(1, 'tools/list'))).result.tools.find((tool: { name: string }) => tool.name === 'contact')
  t.same(listed.inputSchema, CONTACT, '$defs, $anchor, allOf/anyOf, if/then/else, additionalProperties kept')
  t.match(await modernCall(app, modern(2, 'tools/call', { name: 'contact', arguments: { contactMethod: 'phone', email: 'a@b.c' } })), { result: { isError: true, content: [{ text: /phone/ }] } }, 'if/then applied')
  t.match(await modernCall(app, modern(3, 'tools/call', { name: 'contact', arguments: { contactMethod: 'phone', phone: '123' } })), { result: { content: [{ text: '{"contactMethod":"phone","phone":"123"}' }] } })
})

t.test('structuredContent may be any JSON value on 2026-07-28; older clients get text only', async (t) => {
  const app = await catalogApp(t)
  app.mcp.tool({ name: 'primes', outputSchema: { type: 'array', items: { type: 'integer' } } }, async () => ({ structuredContent: [2, 3, 5] }))
  app.mcp.tool({ name: 'answer', outputSchema: { type: 'integer' } }, async () => ({ structuredContent: 42 }))
  app.mcp.tool({ name: 'bad_primes', outputSchema: { type: 'array', items: { type: 'integer' } } }, async () => ({ structuredContent: ['x'] }))

  const tools = (await modernCall(app, modern(1, 'tools/list'))).result.tools
  t.same(tools.find((tool: { name: string }) => tool.name === 'primes').outputSchema, { type: 'array', items: { type: 'integer' } })
  t.match(await modernCall(app, modern(2, 'tools/call', { name: 'primes', arguments: {} })), { result: { structuredContent: [2, 3, 5], content: [{ type: 'text', text: '[2,3,5]' }], resultType: 'complete' } })
  t.match(await modernCall(app, modern(3, 'tools/call', { name: 'answer', arguments: {} })), { result: { structuredContent: 42 } })
  t.match(await modernCall(app, modern(4, 'tools/call', { name: 'bad_primes', arguments: {} })), { error: { code: -32603, message: /invalid structuredContent/ } }, 'still validated')

  const legacy = await legacySession(app)
  const listed = (await legacy(1, 'tools/list')).result.tools
  t.notOk('outputSchema' in listed.find((tool: { name: string }) => tool.name === 'primes'), 'a 2025-11-25 client knows object output schemas only')
  t.ok('outputSchema' in listed.find((tool: { name: string }) => tool.name === 'weather'), 'object output schemas are still listed')
  const called = (await legacy(2, 'tools/call', { name: 'primes', arguments: {} })).result
  t.same(called, { content: [{ type: 'text', text: '[2,3,5]' }] }, 'the data as text, no structuredContent')
  t.match((await legacy(3, 'tools/call', { name: 'weather', arguments: { city: 'Oslo' } })).result, { structuredContent: { city: 'Oslo' } })
})

t.test('x-mcp-header annotations are checked at registration', async (t) => {
  const app = await catalogApp(t)
  const refused: Array<[string, Record<string, unknown>, RegExp]> = [
    ['empty', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': '' } } }, /header token/],
    ['not a token', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Re gion' } } }, /header token/],
    ['not a string', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 7 } } }, /header token/],
    ['twice, any case', { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'Region' }, b: { type: 'string', 'x-mcp-header': 'REGION' } } }, /used twice/],
    ['a number parameter', { type: 'object', properties: { a: { type: 'number', 'x-mcp-header': 'A' } } }, /string, integer or boolean/],
    ['an object parameter', { type: 'object', properties: { a: { type: 'object', 'x-mcp-header': 'A' } } }, /string, integer or boolean/],
    ['under items', { type: 'object', properties: { a: { type: 'array', items: { type: 'string', 'x-mcp-header': 'A' } } } }, /reachable/],
    ['under anyOf', { type: 'object', anyOf: [{ properties: { a: { type: 'string', 'x-mcp-header': 'A' } } }] }, /reachable/],
    ['under $defs', { type: 'object', $defs: { a: { type: 'string', 'x-mcp-header': 'A' } }, properties: {} }, /reachable/],
    ['on the root', { type: 'object', 'x-mcp-header': 'A' }, /reachable/]
  ]
  for (const [name, inputSchema, message] of refused) {
    t.throws(() => app.mcp.tool({ name: 'annotated', inputSchema }, async () => ({ content: [] })), { code: 'FST_MCP_INVALID_DEFINITION', message }, name)
  }
  t.doesNotThrow(() => app.mcp.tool({
    name: 'annotated',
    inputSchema: { type: 'object', properties: { a: { type: 'boolean', 'x-mcp-header': 'A' }, n: { type: 'object', properties: { b: { type: 'integer', 'x-mcp-header': 'B' } } } } }
  }, async () => ({ content: [] })), 'primitives reachable through properties, nested included')
  t.throws(() => app.mcp.tool({ name: 'out', outputSchema: null as never }, async () => ({ content: [] })), { code: 'FST_MCP_INVALID_DEFINITION', message: /outputSchema must be a JSON Schema object/ })
})
