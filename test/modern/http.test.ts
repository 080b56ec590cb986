// MCP 2026-07-28 on the Streamable HTTP endpoint, beside the legacy sessions: routing by how the
// client opens, every rung of the validation ladder (status, code, id), discover, result shaping,
// caching hints, per-request logs, -32021, cancel on disconnect, per-request auth, `protocols`.
import { request as httpRequest } from 'node:http'
import t from 'tap'
import { MissingCapabilityError } from '../../src/protocol/modern/errors.js'
import { probes } from '../fixtures/catalog.js'
import { connectStreamable } from '../helpers/clients.js'
import type { FastifyInstance } from 'fastify'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { sleep, until } from '../helpers/wait.js'
import { base64Header, headersFor, injectModern, meta, MODERN, modern, sseMessages } from '../helpers/modern.js'

const LEGACY_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']

/** Tools only these tests need, registered on a catalog app. */
function addModernTools (app: FastifyInstance): void {
  app.mcp.tool({ name: 'needs_sampling', description: 'Asks the client model' }, async (_args, ctx) => {
    await ctx.sample({ messages: [], maxTokens: 1 })
    return { content: [{ type: 'text', text: 'sampled' }] }
  })
  app.mcp.tool({ name: 'chatty', description: 'Logs at four levels' }, async (_args, ctx) => {
    for (const level of ['debug', 'info', 'warning', 'error'] as const) ctx.log(level, `${level} message`)
    return { content: [{ type: 'text', text: 'logged' }] }
  })
  app.mcp.tool({
    name: 'regional',
    description: 'Mirrors parameters into Mcp-Param headers',
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'Region' },
        shard: { type: 'integer', 'x-mcp-header': 'Shard' },
        dry: { type: 'boolean', 'x-mcp-header': 'Dry' },
        nested: { type: 'object', properties: { tenant: { type: 'string', 'x-mcp-header': 'Tenant' } } }
      }
    }
  }, async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }))
}

t.test('server/discover: versions (legacy ones too), capabilities, instructions, identity, caching; no session', async (t) => {
  const app = await catalogApp(t, { instructions: 'Use add for sums.' })
  const reply = await injectModern(app, modern(1, 'server/discover'))
  t.equal(reply.statusCode, 200)
  t.match(reply.headers['content-type'], /^application\/json/)
  t.notOk(reply.headers['mcp-session-id'], 'no session id on a modern answer')
  t.same(reply.json(), {
    jsonrpc: '2.0',
    id: 1,
    result: {
      supportedVersions: [MODERN, ...LEGACY_VERSIONS],
      // listChanged and subscribe: delivered on subscriptions/listen streams.
      capabilities: { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true }, completions: {} },
      instructions: 'Use add for sums.',
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } },
      ttlMs: 0,
      cacheScope: 'private'
    }
  })
  t.equal(app.mcp.sessionCount, 0, 'a modern request opens no session')
  const noInfo = await injectModern(app, { jsonrpc: '2.0', id: 2, method: 'server/discover', params: { _meta: meta({ 'io.modelcontextprotocol/clientInfo': undefined }) } })
  t.equal(noInfo.statusCode, 200, 'clientInfo is optional')
})

t.test('rung 1, bad _meta: 400 and -32602 with the request id', async (t) => {
  const app = await catalogApp(t)
  const cases: Array<[string, Record<string, unknown>]> = [
    ['no _meta at all (a modern header, no claim)', { jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} }],
    ['no params', { jsonrpc: '2.0', id: 'b', method: 'tools/list' }],
    ['no clientCapabilities', { jsonrpc: '2.0', id: 'c', method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN } } }],
    ['clientCapabilities not an object', modern('d', 'tools/list', {}, { 'io.modelcontextprotocol/clientCapabilities': ['sampling'] })],
    ['protocolVersion not a string', modern('e', 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': 20260728 })],
    ['clientInfo not an object', modern('f', 'tools/list', {}, { 'io.modelcontextprotocol/clientInfo': 'me' })],
    ['an unknown log level', modern('g', 'tools/list', {}, { 'io.modelcontextprotocol/logLevel': 'verbose' })]
  ]
  for (const [name, body] of cases) {
    const reply = await injectModern(app, body)
    t.equal(reply.statusCode, 400, name)
    t.match(reply.json(), { jsonrpc: '2.0', id: body.id, error: { code: -32602, message: /^Invalid params/ } }, name)
  }
  t.equal((await injectModern(app, modern(9, 'tools/list'))).statusCode, 200, 'the server keeps serving')
})

t.test('rung 2, headers: 400 and -32020 when a header is missing or says something else than the body', async (t) => {
  const app = await catalogApp(t)
  addModernTools(app)
  const call = modern(7, 'tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
  const read = modern(8, 'resources/read', { uri: 'docs://readme' })
  const cases: Array<[string, Record<string, unknown>, Record<string, string | undefined>]> = [
    ['MCP-Protocol-Version missing', call, { 'mcp-protocol-version': undefined }],
    ['MCP-Protocol-Version not the body version', modern(3, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' }), {}],
    ['Mcp-Method missing', call, { 'mcp-method': undefined }],
    ['Mcp-Method another method', call, { 'mcp-method': 'tools/list' }],
    ['Mcp-Method values are case-sensitive', call, { 'mcp-method': 'TOOLS/CALL' }],
    ['Mcp-Name missing', call, { 'mcp-name': undefined }],
    ['Mcp-Name another tool', call, { 'mcp-name': 'echo_plain' }],
    ['Mcp-Name another uri', read, { 'mcp-name': 'docs://other' }],
    ['Mcp-Name base64 of another name', call, { 'mcp-name': base64Header('ad') }],
    ['Mcp-Name invalid base64 padding', call, { 'mcp-name': '=?base64?YWRk?=x' }],
    ['Mcp-Name base64 with bad characters', call, { 'mcp-name': '=?base64?YW!k?=' }],
    ['Mcp-Name base64 without padding', call, { 'mcp-name': '=?base64?SGVsbG8?=' }],
    ['Mcp-Param missing for a set parameter', modern(4, 'tools/call', { name: 'regional', arguments: { region: 'eu' } }), {}],
    ['Mcp-Param another value', modern(4, 'tools/call', { name: 'regional', arguments: { region: 'eu' } }), { 'mcp-param-region': 'us' }],
    ['Mcp-Param integer another number', modern(4, 'tools/call', { name: 'regional', arguments: { shard: 42 } }), { 'mcp-param-shard': '41' }],
    ['Mcp-Param boolean not lowercase', modern(4, 'tools/call', { name: 'regional', arguments: { dry: true } }), { 'mcp-param-dry': 'TRUE' }],
    ['Mcp-Param of a nested property missing', modern(4, 'tools/call', { name: 'regional', arguments: { nested: { tenant: 'acme' } } }), {}],
    ['Mcp-Param invalid base64', modern(4, 'tools/call', { name: 'regional', arguments: { region: 'eu' } }), { 'mcp-param-region': '=?base64?SGVs!!!bG8=?=' }],
    ['initialize under a modern header', { jsonrpc: '2.0', id: 5, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }, {}]
  ]
  for (const [name, body, overrides] of cases) {
    const reply = await injectModern(app, body, overrides)
    t.equal(reply.statusCode, 400, name)
    t.match(reply.json(), { jsonrpc: '2.0', id: body.id, error: { code: -32020, message: /^Header mismatch/ } }, name)
    t.notOk(reply.body.includes('echo_plain') || reply.body.includes('TOOLS/CALL'), `${name}: header values are not echoed`)
  }
})

t.test('rung 2, headers that match: any case of the name, whitespace around values, base64, numbers and booleans', async (t) => {
  const app = await catalogApp(t)
  addModernTools(app)
  const accepted: Array<[string, Record<string, unknown>, Record<string, string | undefined>]> = [
    ['upper-case header names', modern(1, 'tools/list'), { 'MCP-METHOD': 'tools/list' }],
    ['whitespace around Mcp-Name', modern(2, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }), { 'mcp-name': '  add  ' }],
    ['base64 Mcp-Name', modern(3, 'tools/call', { name: 'add', arguments: { a: 1, b: 1 } }), { 'mcp-name': base64Header('add') }],
    ['base64 Mcp-Name of a non-ASCII uri', modern(4, 'resources/read', { uri: 'docs://pages/über' }), { 'mcp-name': base64Header('docs://pages/über') }],
    ['a value without the sentinel is literal', modern(5, 'tools/call', { name: 'regional', arguments: { region: 'SGVsbG8=' } }), { 'mcp-param-region': 'SGVsbG8=' }],
    ['Mcp-Param base64', modern(6, 'tools/call', { name: 'regional', arguments: { region: 'Hello, 世界' } }), { 'mcp-param-region': base64Header('Hello, 世界') }],
    ['Mcp-Param integers compare as numbers', modern(7, 'tools/call', { name: 'regional', arguments: { shard: 42 } }), { 'mcp-param-shard': '42.0' }],
    ['Mcp-Param booleans', modern(8, 'tools/call', { name: 'regional', arguments: { dry: false } }), { 'mcp-param-dry': 'false' }],
    ['Mcp-Param of a nested property', modern(9, 'tools/call', { name: 'regional', arguments: { nested: { tenant: 'acme' } } }), { 'mcp-param-tenant': 'acme' }],
    ['no header for an absent or null parameter', modern(10, 'tools/call', { name: 'regional', arguments: { region: null } }), {}]
  ]
  for (const [name, body, overrides] of accepted) {
    const reply = await injectModern(app, body, overrides)
    t.equal(reply.statusCode, 200, name)
    t.notOk('error' in reply.json(), `${name}: ${reply.body.slice(0, 200)}`)
  }
})

t.test('rung 3, an unsupported version: 400 and -32022 listing every version served and echoing the request', async (t) => {
  const app = await catalogApp(t)
  const body = modern(11, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '1900-01-01' })
  const reply = await injectModern(app, body, { 'mcp-protocol-version': '1900-01-01' })
  t.equal(reply.statusCode, 400)
  t.same(reply.json(), {
    jsonrpc: '2.0',
    id: 11,
    error: { code: -32022, message: 'Unsupported protocol version', data: { supported: [MODERN, ...LEGACY_VERSIONS], requested: '1900-01-01' } }
  })
  // A legacy version claimed in _meta is not a modern request either: the client must use initialize for it.
  const legacy = await injectModern(app, modern(12, 'tools/list', {}, { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' }), { 'mcp-protocol-version': '2025-11-25' })
  t.equal(legacy.statusCode, 400)
  t.match(legacy.json(), { id: 12, error: { code: -32022 } })
})

t.test('rung 4, methods the revision removed or never had: 404 and -32601 with the id', async (t) => {
  const app = await catalogApp(t)
  for (const method of ['initialize', 'ping', 'logging/setLevel', 'resources/subscribe', 'resources/unsubscribe', 'unknown/method', 'tasks/result']) {
    const reply = await injectModern(app, modern(method, method, method === 'logging/setLevel' ? { level: 'info' } : {}))
    t.equal(reply.statusCode, 404, method)
    t.match(reply.json(), { jsonrpc: '2.0', id: method, error: { code: -32601 } }, method)
  }
})

t.test('results carry resultType and serverInfo; the six cacheable methods carry ttlMs and cacheScope', async (t) => {
  const app = await catalogApp(t)
  const identity = { 'io.modelcontextprotocol/serverInfo': { name: 'catalog', version: '1.0.0' } }
  const cacheable: Array<[string, Record<string, unknown>]> = [
    ['tools/list', {}], ['prompts/list', {}], ['resources/list', {}], ['resources/templates/list', {}], ['resources/read', { uri: 'docs://readme' }], ['server/discover', {}]
  ]
  for (const [method, params] of cacheable) {
    const result = (await injectModern(app, modern(1, method, params))).json().result
    t.match(result, { resultType: 'complete', _meta: identity, ttlMs: 0, cacheScope: 'private' }, method)
  }
  const structured = (await injectModern(app, modern(2, 'tools/call', { name: 'weather', arguments: { city: 'Oslo' } }))).json().result
  t.match(structured, { structuredContent: { city: 'Oslo', celsius: 21 }, resultType: 'complete', _meta: identity })
  t.notOk('ttlMs' in structured, 'tools/call is not cacheable')
  const prompt = (await injectModern(app, modern(3, 'prompts/get', { name: 'greet', arguments: { who: 'Ada' } }))).json().result
  t.match(prompt, { messages: [{ content: { text: 'Hello Ada' } }], resultType: 'complete', _meta: identity })
  const completion = (await injectModern(app, modern(4, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }))).json().result
  t.match(completion, { completion: { values: ['Ada', 'Alan'] }, resultType: 'complete' })
  const toolError = (await injectModern(app, modern(5, 'tools/call', { name: 'explode', arguments: {} }))).json().result
  t.match(toolError, { isError: true, resultType: 'complete' }, 'a tool error is a complete result')

  // The legacy leg is untouched: no resultType, no cache fields.
  const session = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } })
  const legacy = await app.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': String(session.headers['mcp-session-id']) }, payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  t.notOk('resultType' in legacy.json().result || 'ttlMs' in legacy.json().result, 'legacy results are as before')
})

t.test('the cache option sets the hints, per method; handlers may set their own for resources/read', async (t) => {
  const app = await catalogApp(t, { cache: { ttlMs: 60_000, scope: 'public', methods: { 'resources/read': { ttlMs: 0, scope: 'private' }, 'tools/list': { ttlMs: 5000 } } } })
  app.mcp.resource({ uri: 'docs://fresh', name: 'fresh' }, async (uri) => ({ contents: [{ uri, text: 'x' }], ttlMs: 1234, cacheScope: 'public' }) as never)
  t.match((await injectModern(app, modern(1, 'tools/list'))).json().result, { ttlMs: 5000, cacheScope: 'public' })
  t.match((await injectModern(app, modern(2, 'prompts/list'))).json().result, { ttlMs: 60_000, cacheScope: 'public' })
  t.match((await injectModern(app, modern(3, 'resources/read', { uri: 'docs://readme' }))).json().result, { ttlMs: 0, cacheScope: 'private' })
  t.match((await injectModern(app, modern(4, 'resources/read', { uri: 'docs://fresh' }))).json().result, { ttlMs: 1234, cacheScope: 'public' })
})

t.test('an unknown resource is -32602 with its uri on 2026-07-28 (and still -32002 on a legacy session)', async (t) => {
  const app = await catalogApp(t)
  const reply = await injectModern(app, modern(1, 'resources/read', { uri: 'docs://missing' }))
  t.equal(reply.statusCode, 200, 'a handler error is an ordinary answer')
  t.same(reply.json(), { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Resource not found', data: { uri: 'docs://missing' } } })
})

t.test('-32021: a handler needing an undeclared capability; 400 with requiredCapabilities as a ClientCapabilities object', async (t) => {
  const app = await catalogApp(t)
  addModernTools(app)
  const reply = await injectModern(app, modern(1, 'tools/call', { name: 'needs_sampling', arguments: {} }))
  t.equal(reply.statusCode, 400)
  t.same(reply.json(), { jsonrpc: '2.0', id: 1, error: { code: -32021, message: 'Missing required client capability: sampling', data: { requiredCapabilities: { sampling: {} } } } })
  t.equal(new MissingCapabilityError('elicitation', 'roots').code, -32021, 'the error class other features throw')
})

t.test('logs only when the request asks, at or above its level, on that request\'s stream; no event ids, no priming', async (t) => {
  const app = await catalogApp(t)
  addModernTools(app)
  const silent = await injectModern(app, modern(1, 'tools/call', { name: 'chatty', arguments: {} }))
  t.match(silent.headers['content-type'], /^application\/json/, 'no log, so nothing but the response: JSON')
  t.match(silent.json(), { id: 1, result: { content: [{ text: 'logged' }] } })

  const asked = await injectModern(app, modern(2, 'tools/call', { name: 'chatty', arguments: {} }, { 'io.modelcontextprotocol/logLevel': 'warning' }))
  t.match(asked.headers['content-type'], /^text\/event-stream/)
  t.equal(asked.headers['x-accel-buffering'], 'no')
  t.notOk(asked.headers['mcp-session-id'])
  t.notOk(/^id:/m.test(asked.body) || /^retry:/m.test(asked.body), 'no event ids or priming events: a modern stream is not resumable')
  const messages = sseMessages(asked.body)
  t.same(messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.level), ['warning', 'error'])
  t.match(messages.at(-1), { id: 2, result: { resultType: 'complete' } })

  const debug = sseMessages((await injectModern(app, modern(3, 'tools/call', { name: 'chatty', arguments: {} }, { 'io.modelcontextprotocol/logLevel': 'debug' }))).body)
  t.equal(debug.filter((m) => m.method === 'notifications/message').length, 4)

  const progress = sseMessages((await injectModern(app, modern(4, 'tools/call', { name: 'progress', arguments: { steps: 2 } }, { progressToken: 'p1' }))).body)
  t.same(progress.filter((m) => m.method === 'notifications/progress').map((m) => m.params.progress), [1, 2], 'progress needs no log level')
  t.notOk(progress.some((m) => m.method === 'notifications/message'), 'the info log of the progress tool stays unsent')
})

t.test('closing the connection of a modern request cancels its handler (ctx.signal aborts)', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const body = modern(1, 'tools/call', { name: 'wait_for_abort', arguments: { tag: 'modern-http' } }, { progressToken: 'w' })
  const req = httpRequest(`${base}/mcp`, { method: 'POST', headers: headersFor(body) })
  req.end(JSON.stringify(body))
  const response = await new Promise<import('node:http').IncomingMessage>((resolve) => req.once('response', resolve))
  t.match(response.headers['content-type'], /^text\/event-stream/, 'upgraded to a stream by the progress report')
  await new Promise<void>((resolve) => response.once('data', () => resolve()))
  response.destroy()
  req.destroy()
  await until(() => probes.aborted.includes('modern-http'), { what: 'the handler to see its signal abort' })
  t.pass('the handler saw its signal abort')

  // The same for an answer still pending as JSON.
  const quiet = modern(2, 'tools/call', { name: 'wait_for_abort', arguments: { tag: 'modern-json' } })
  const jsonOnly = httpRequest(`${base}/mcp`, { method: 'POST', headers: headersFor(quiet, { accept: 'application/json' }) })
  jsonOnly.on('error', () => {})
  jsonOnly.end(JSON.stringify(quiet))
  await sleep(50)
  jsonOnly.destroy()
  await until(() => probes.aborted.includes('modern-json'), { what: 'the handler to see its signal abort' })
  t.pass('a JSON answer nobody can read any more is cancelled too')
})

t.test('a legacy session on the same endpoint keeps working with the SDK 1.32.2 client, beside modern requests', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  t.equal(app.mcp.sessionCount, 1)
  const fromModern = await fetch(`${base}/mcp`, { method: 'POST', headers: headersFor(modern(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })), body: JSON.stringify(modern(1, 'tools/call', { name: 'add', arguments: { a: 2, b: 3 } })) })
  t.match(await fromModern.json(), { result: { content: [{ text: '5' }], resultType: 'complete' } })
  const legacy = await client.callTool({ name: 'add', arguments: { a: 40, b: 2 } })
  t.same(legacy, { content: [{ type: 'text', text: '42' }] }, 'no resultType on the legacy answer')
  t.equal(client.getServerVersion()?.name, 'catalog')
  await client.setLoggingLevel('error')
  t.ok(await client.ping())
  t.equal(app.mcp.sessionCount, 1, 'modern requests add no session')
  t.equal(app.mcp.broadcast({ method: 'notifications/message', params: { level: 'error', data: 'x' } }), 1, 'broadcasts reach the legacy session only')
})

t.test('every 2026-07-28 request is authenticated on its own; ctx.auth is that request\'s principal', async (t) => {
  const keys = ['key-one-0123456789abcdef', 'key-two-0123456789abcdef']
  const app = await catalogApp(t, { auth: { type: 'apikey', options: { keys } } })
  const call = modern(1, 'tools/call', { name: 'whoami', arguments: {} })
  const refused = await injectModern(app, call)
  t.equal(refused.statusCode, 401, 'no credential, no answer')
  const one = await injectModern(app, call, { 'x-api-key': keys[0] })
  const two = await injectModern(app, call, { 'x-api-key': keys[1] })
  const subject = (reply: typeof one): string => JSON.parse(reply.json().result.content[0].text).subject
  t.match(subject(one), /^apikey:/)
  t.not(subject(one), subject(two), 'each request carries its own principal')
})

t.test('protocols: ["legacy"] serves only initialize clients; ["modern"] only 2026-07-28', async (t) => {
  const legacyOnly = await catalogApp(t, { protocols: ['legacy'] })
  const claim = await injectModern(legacyOnly, modern(1, 'server/discover'))
  t.equal(claim.statusCode, 400, 'as before this revision existed')
  t.notOk(claim.json().error.code === -32022 || claim.json().error.code === -32601, 'no modern error: a dual-era client falls back')

  const modernOnly = await catalogApp(t, { protocols: ['modern'] })
  t.same((await injectModern(modernOnly, modern(2, 'server/discover'))).json().result.supportedVersions, [MODERN])
  const init = await modernOnly.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json' }, payload: { jsonrpc: '2.0', id: 3, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } } } })
  t.equal(init.statusCode, 400)
  t.match(init.json(), { id: 3, error: { code: -32602 } })
  for (const method of ['GET', 'DELETE'] as const) {
    const reply = await modernOnly.inject({ method, url: '/mcp', headers: { accept: 'text/event-stream', 'mcp-session-id': 'x' } })
    t.equal(reply.statusCode, 405, method)
    t.equal(reply.headers.allow, 'POST')
  }
  const notification = await modernOnly.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', method: 'notifications/initialized' } })
  t.equal(notification.statusCode, 202, 'notifications are accepted and ignored')
})
