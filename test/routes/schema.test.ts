// The pieces a route tool is made of, each on its own: Fastify path syntax, $ref resolution over
// shared schemas, the flat-or-grouped input rule, names, and how answers become results.
import t from 'tap'
import { routeInput } from '../../src/routes/input.js'
import { methodPathName, toToolName } from '../../src/routes/naming.js'
import { parseRoutePath } from '../../src/routes/path.js'
import { toToolResult } from '../../src/routes/result.js'
import { Dereferencer, jsonSchemaOf, SchemaProblem } from '../../src/routes/schema.js'
import { buildRouteTool } from '../../src/routes/tool.js'
import type { RouteCandidate } from '../../src/schemas/routes.js'

t.test('route paths: parameters, regexes, several per segment, optional, wildcard, escaped colons', async (t) => {
  const regex = parseRoutePath('/orders/:id(^\\d+$)/lines/:from-:to.json')
  t.strictSame(regex.params, ['id', 'from', 'to'])
  t.equal(regex.build({ id: 12, from: 'a b', to: 'z/' }), '/orders/12/lines/a%20b-z%2F.json', 'each value encoded, regexes gone')
  t.equal(regex.words, '/orders/id/lines/from-to.json')

  const optional = parseRoutePath('/users/:id?')
  t.equal(optional.optional, 'id')
  t.equal(optional.build({ id: 'u1' }), '/users/u1')
  t.equal(optional.build({}), '/users', 'without it, its segment goes')

  const wildcard = parseRoutePath('/files/*')
  t.strictSame(wildcard.params, ['*'])
  t.equal(wildcard.build({ '*': 'a dir/b.txt' }), '/files/a%20dir/b.txt', 'the wildcard keeps its slashes')

  const colon = parseRoutePath('/time/12::30/:zone')
  t.strictSame(colon.params, ['zone'])
  t.equal(colon.build({ zone: 'UTC' }), '/time/12:30/UTC')
  t.equal(parseRoutePath('/nested/:re(a(b)c)/end').build({ re: 'abc' }), '/nested/abc/end', 'nested parentheses in a regex')
})

t.test('tool names: within the grammar, from any path or operationId', async (t) => {
  t.equal(methodPathName('GET', '/'), 'get')
  t.equal(methodPathName('DELETE', '/api/v1.2/items/id'), 'delete_api_v1.2_items_id')
  t.equal(toToolName('get user (by id)'), 'get_user_by_id')
  t.equal(toToolName('%%%'), 'route', 'never empty')
  t.equal(toToolName('x'.repeat(200)).length, 128, 'never longer than 128')
})

t.test('$refs: shared, local, relative to an $id, recursive', async (t) => {
  const shared = {
    'http://example.com/schemas/user.json': {
      $id: 'http://example.com/schemas/user.json',
      type: 'object',
      properties: { address: { $ref: 'address.json#' }, tags: { $ref: '#/definitions/tags' } },
      definitions: { tags: { type: 'array', items: { type: 'string' } } }
    },
    'http://example.com/schemas/address.json': { $id: 'http://example.com/schemas/address.json', type: 'object', properties: { city: { type: 'string' } } },
    node: { $id: 'node', type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: 'node#' } } } }
  }
  const refs = new Dereferencer(shared)
  t.strictSame(refs.resolve({ $ref: 'http://example.com/schemas/user.json' }, 'schema.body'), {
    type: 'object',
    properties: { address: { type: 'object', properties: { city: { type: 'string' } } }, tags: { type: 'array', items: { type: 'string' } } }
  }, 'inlined, ids and definitions dropped')

  t.strictSame(refs.resolve({
    type: 'object',
    properties: { owner: { $ref: 'http://example.com/schemas/address.json#/properties/city', description: 'The owner\'s city' }, limit: { $ref: '#/$defs/n', minimum: 1 } },
    $defs: { n: { type: 'integer' } },
    examples: [{ $ref: 'not a reference' }]
  }, 'schema.body'), {
    type: 'object',
    properties: { owner: { type: 'string', description: 'The owner\'s city' }, limit: { minimum: 1, allOf: [{ type: 'integer' }] } },
    examples: [{ $ref: 'not a reference' }]
  }, 'annotations beside a $ref refine it, other keywords apply beside it; examples are data')

  const tree = new Dereferencer(shared)
  t.strictSame(tree.resolve({ type: 'object', properties: { root: { $ref: 'node#' }, again: { $ref: 'node#' } } }, 'schema.body'), {
    type: 'object', properties: { root: { $ref: '#/$defs/node' }, again: { $ref: '#/$defs/node' } }
  }, 'a recursive schema is referred to')
  t.strictSame(tree.defs, { node: { type: 'object', properties: { value: { type: 'number' }, children: { type: 'array', items: { $ref: '#/$defs/node' } } } } }, '...and defined once')

  const problems: Array<[unknown, RegExp]> = [
    [{ $ref: '#anchor' }, /names an anchor/],
    [{ $ref: 'node#/properties/nothing' }, /points at nothing/],
    [{ $ref: 'elsewhere#' }, /names no schema added with app\.addSchema\(\)/]
  ]
  for (const [schema, message] of problems) t.throws(() => new Dereferencer(shared).resolve(schema as Record<string, unknown>, 'schema.body'), message)
})

t.test('what is a JSON Schema: plain JSON data, or a fluent-json-schema builder', async (t) => {
  const fluent = { isFluentSchema: true, valueOf: () => ({ type: 'object', properties: { a: { type: 'string' } } }) }
  t.strictSame(jsonSchemaOf(fluent, 'schema.body'), { type: 'object', properties: { a: { type: 'string' } } })
  let deep: Record<string, unknown> = { type: 'string' }
  for (let i = 0; i < 70; i++) deep = { items: deep }
  t.throws(() => jsonSchemaOf(deep, 'schema.body'), /nested more than 64 levels/)
  t.throws(() => jsonSchemaOf({ type: 'object', default: 10n }, 'schema.body'), /holds a bigint/)
  t.throws(() => jsonSchemaOf({ type: 'object', default: new Date(0) }, 'schema.body'), /holds an instance of Date/)
  t.throws(() => jsonSchemaOf(null, 'schema.body'), new SchemaProblem('schema.body is not a JSON Schema object (got null); give the route JSON Schemas (TypeBox, fluent-json-schema or plain objects), or set config.mcp: false'))
})

t.test('arguments: flat unless names clash or a part cannot be spread', async (t) => {
  const path = parseRoutePath('/items/:id')
  const flat = routeInput({
    params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    query: { type: 'object', properties: { page: { type: 'integer' } } },
    body: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: { type: 'number' } },
    headers: { type: 'object', properties: { 'x-trace': { type: 'string' } }, required: ['x-trace'] }
  }, path, {})
  t.equal(flat.nested, false)
  t.strictSame(flat.schema, {
    type: 'object',
    properties: { id: { type: 'string' }, page: { type: 'integer' }, name: { type: 'string' }, 'x-trace': { type: 'string' } },
    required: ['id', 'x-trace'],
    additionalProperties: { type: 'number' }
  })
  t.strictSame(flat.place({ id: 'a/b', page: 2, name: 'n', extra: 1, 'x-trace': 't', tags: undefined }), {
    path: '/items/a%2Fb', query: { page: '2' }, headers: { 'x-trace': 't' }, body: { name: 'n', extra: 1 }
  }, 'extra arguments go to the body its schema allows')

  const queryOnly = routeInput({ query: { type: 'object', properties: { q: { type: 'string' } } } }, parseRoutePath('/search'), {})
  t.strictSame(queryOnly.place({ q: 'x', tags: ['a', 1], filter: { a: 1 } }).query, { q: 'x', tags: ['a', '1'], filter: '{"a":1}' }, 'no body: extras go to the query string, as text')

  const array = routeInput({ body: { type: 'array', items: { type: 'string' } } }, parseRoutePath('/bulk'), { node: { type: 'object' } })
  t.equal(array.nested, true, 'a body that is no object is grouped')
  t.strictSame(array.schema, { type: 'object', properties: { body: { type: 'array', items: { type: 'string' } } }, additionalProperties: false, required: ['body'], $defs: { node: { type: 'object' } } })
  t.strictSame(array.place({ body: ['a'] }), { path: '/bulk', query: undefined, headers: {}, body: ['a'] })
})

t.test('a route\'s schema: wildcard, JSON body entry, header arguments, output schemas', async (t) => {
  const route = (url: string, method: string, schema: Record<string, unknown>): RouteCandidate => ({ method, url, schema, handler: async () => ({}) }) as unknown as RouteCandidate
  const env = { shared: {}, callerHeaders: new Set(['x-tenant']) }

  const files = buildRouteTool(route('/files/*', 'PUT', {
    params: { type: 'object', properties: { '*': { type: 'string', minLength: 1 } } },
    body: { content: { 'application/vnd.api+json': { schema: { type: 'object', properties: { data: { type: 'string' } } } } } },
    headers: { type: 'object', properties: { 'x-tenant': { type: 'string' }, Authorization: { type: 'string' }, 'if-match': { type: 'string' } }, required: ['Authorization', 'if-match'] },
    response: { 200: { type: 'object', properties: { a: { type: 'string' } } }, 201: { content: { 'application/json': { schema: { type: 'object', properties: { b: { type: 'string' } } } } } } }
  }), 'PUT', {}, env)
  t.strictSame(files.definition.inputSchema, {
    type: 'object',
    properties: { wildcard: { type: 'string', minLength: 1 }, data: { type: 'string' }, 'if-match': { type: 'string' } },
    required: ['wildcard', 'if-match']
  }, 'the caller\'s headers are no arguments')
  t.strictSame(files.definition.outputSchema, { anyOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'string' } } }] })

  t.equal(buildRouteTool(route('/gone', 'DELETE', { response: { 200: { type: 'object' }, 204: { type: 'null' } } }), 'DELETE', {}, env).definition.outputSchema, undefined,
    'a 2xx that may have no body: no outputSchema')
  t.equal(buildRouteTool(route('/csv', 'GET', { response: { 200: { content: { 'text/csv': { schema: { type: 'string' } } } } } }), 'GET', {}, env).definition.outputSchema, undefined,
    'a 2xx that is no JSON: no outputSchema')
  const recursive = buildRouteTool(route('/tree', 'POST', {
    body: { type: 'object', properties: { child: { $ref: '#' } } },
    querystring: { type: 'object', properties: { next: { $ref: '#' }, depth: { type: 'integer' } } }
  }), 'POST', {}, env)
  t.strictSame(recursive.definition.inputSchema, {
    type: 'object',
    properties: { next: { $ref: '#/$defs/schema.querystring' }, depth: { type: 'integer' }, child: { $ref: '#/$defs/schema.body' } },
    $defs: {
      'schema.querystring': { type: 'object', properties: { next: { $ref: '#/$defs/schema.querystring' }, depth: { type: 'integer' } } },
      'schema.body': { type: 'object', properties: { child: { $ref: '#/$defs/schema.body' } } }
    }
  }, 'a part referring to itself: its own $defs entry, each part its own')
})

t.test('answers as results: redirects, bodies that lie about JSON, empty 200s, text types', async (t) => {
  const answer = (statusCode: number, contentType: string | undefined, body: string, headers: Record<string, string> = {}) =>
    toToolResult({ statusCode, headers: { ...(contentType === undefined ? {} : { 'content-type': contentType }), ...headers }, payload: body, rawPayload: Buffer.from(body) }, () => 'http://localhost/x')
  t.strictSame(answer(302, undefined, '', { location: '/elsewhere' }), { content: [{ type: 'text', text: '302 Found (location: /elsewhere)' }], isError: true })
  t.strictSame(answer(200, 'application/json', '{not json'), { content: [{ type: 'text', text: '{not json' }] })
  t.strictSame(answer(200, 'application/json', ''), { content: [{ type: 'text', text: '200 OK' }] })
  t.strictSame(answer(200, 'application/problem+json', '[1]'), { content: [{ type: 'text', text: '[1]' }], structuredContent: [1] })
  t.strictSame(answer(200, 'application/atom+xml', '<feed/>'), { content: [{ type: 'text', text: '<feed/>' }] })
  t.strictSame(answer(200, undefined, 'plain'), { content: [{ type: 'text', text: 'plain' }] })
  t.strictSame(answer(200, 'audio/ogg', 'OggS'), { content: [{ type: 'audio', data: Buffer.from('OggS').toString('base64'), mimeType: 'audio/ogg' }] })
  t.strictSame(answer(599, 'text/plain', 'secret'), { content: [{ type: 'text', text: '599 Unknown Status' }], isError: true })
})

t.test('url globs: one segment, any depth, one character, the rest literal', async (t) => {
  const { selects } = await import('../../src/routes/select.js')
  const route = (url: string): RouteCandidate => ({ method: 'GET', url, handler: async () => ({}) }) as unknown as RouteCandidate
  const matches = (glob: string, url: string): boolean => selects([{ url: glob }], route(url), 'GET')
  t.ok(matches('/api/*/items', '/api/v1/items'))
  t.notOk(matches('/api/*/items', '/api/v1/x/items'), '* stays within a segment')
  t.ok(matches('/api/**/items', '/api/v1/x/items'), '** crosses segments')
  t.ok(matches('/api/**', '/api') && matches('/api/**', '/api/a/b'))
  t.notOk(matches('/api/**', '/apix'))
  t.ok(matches('/v?/stats', '/v2/stats'))
  t.notOk(matches('/v?/stats', '/v/stats'))
  t.ok(matches('/files/:id(^\\d+$).json', '/files/:id(^\\d+$).json'), 'regex characters are literal')
  t.notOk(selects([{ url: '/x', method: ['POST', 'put'] }], route('/x'), 'GET'))
  t.ok(selects([{ url: '/x', method: ['POST', 'get'] }], route('/x'), 'GET'))
})
