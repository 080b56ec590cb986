import t from 'tap'
import Fastify from 'fastify'
import cors from '@fastify/cors'
import mcp from '../../src/index.js'
import { connectSse } from '../helpers/clients.js'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'

const APP = 'https://app.example'
const KEY_A = 'encapsulation-key-aaaaaaaa'
const KEY_B = 'encapsulation-key-bbbbbbbb'

t.test("a user's own routes get neither MCP CORS nor MCP auth", async (t) => {
  const app = await catalogApp(t, { cors: { allowOrigins: [APP] }, auth: { type: 'apikey', options: { keys: [KEY_A] } } }, {
    before: (app) => {
      app.get('/hello', async () => ({ hello: 'world' }))
      app.post('/echo', async (request) => ({ body: request.body }))
    }
  })
  t.ok(app.hasDecorator('mcp'), 'app.mcp is decorated on the app itself')
  t.type(app.mcp.tool, 'function')

  const hello = await app.inject({ method: 'GET', url: '/hello', headers: { origin: APP } })
  t.equal(hello.statusCode, 200, 'no API key needed')
  t.same(hello.json(), { hello: 'world' })
  t.notOk(hello.headers['access-control-allow-origin'], 'no MCP CORS header')
  const preflight = await app.inject({ method: 'OPTIONS', url: '/hello', headers: { origin: APP, 'access-control-request-method': 'GET' } })
  t.notOk(preflight.headers['access-control-allow-origin'], "the user's preflights are not answered with the MCP policy")
  const foreign = await app.inject({ method: 'GET', url: '/hello', headers: { origin: 'https://evil.example' } })
  t.equal(foreign.statusCode, 200, 'the MCP origin guard does not apply either')
  const text = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'text/plain' }, payload: 'plain' })
  t.same(text.json(), { body: 'plain' }, "the app's text parser still works on its routes")
  const missing = await app.inject({ method: 'GET', url: '/nowhere' })
  t.equal(missing.statusCode, 404)
  t.equal(missing.json().message, 'Route GET:/nowhere not found', "the app's own 404 is untouched")

  const mcpRoute = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { 'content-type': 'application/json' }, payload: '{}' })
  t.equal(mcpRoute.statusCode, 401, 'while the MCP routes do need the key')
})

t.test("the app's error handler and the MCP error contract do not mix", async (t) => {
  const app = await catalogApp(t, {}, {
    before: (app) => {
      app.setErrorHandler(async (_error, _request, reply) => await reply.code(418).send({ mine: true }))
      app.get('/boom', async () => { throw new Error('boom') })
    }
  })
  t.same((await app.inject({ method: 'GET', url: '/boom' })).json(), { mine: true }, "the user's handler for the user's route")
  const ours = await app.inject({ method: 'POST', url: '/messages', headers: { 'content-type': 'application/json' }, payload: '{' })
  t.equal(ours.statusCode, 400)
  t.equal(ours.json().error.code, -32700, 'the contract for ours')
})

t.test('an app that already uses @fastify/cors can add MCP with its own CORS', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(cors, { origin: ['https://site.example'] })
  app.get('/api', async () => 'ok')
  await app.register(mcp, { cors: { allowOrigins: [APP] } })
  await app.ready()
  const theirs = await app.inject({ method: 'GET', url: '/api', headers: { origin: 'https://site.example' } })
  t.equal(theirs.headers['access-control-allow-origin'], 'https://site.example', 'their CORS on their route')
  // (The app-wide plugin runs first on every route and answers preflights itself, by its own policy.)
  const ours = await app.inject({ method: 'POST', url: '/messages?sessionId=x', headers: { origin: APP, 'content-type': 'application/json' }, payload: '{}' })
  t.equal(ours.statusCode, 404)
  t.equal(ours.headers['access-control-allow-origin'], APP, 'ours on ours')
})

t.test('a prefix moves the routes and the endpoint event follows', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { prefix: '/api' } as never)
  const stream = await openRawStream(`${base}/api/sse`)
  t.teardown(() => stream.destroy())
  t.equal(stream.response.statusCode, 200)
  const messages = endpointOf(await stream.next())
  t.match(messages, /^\/api\/messages\?sessionId=[0-9a-f-]{36}$/, 'the endpoint event carries the prefix')
  const accepted = await app.inject({ method: 'POST', url: messages, headers: { 'content-type': 'application/json' }, payload: { jsonrpc: '2.0', id: 1, method: 'ping' } })
  t.equal(accepted.statusCode, 202)
  t.equal((await app.inject({ method: 'POST', url: messages.replace('/api', ''), payload: {} })).statusCode, 404, 'nothing at the unprefixed path')
  t.equal((await app.inject({ method: 'HEAD', url: '/api/sse' })).statusCode, 404, 'no HEAD route that would open a session')
  t.equal(app.mcp.sessionCount, 1)
})

t.test('a prefix with a trailing slash', async (t) => {
  const { base } = await listeningCatalogApp(t, { prefix: '/api/' } as never)
  const stream = await openRawStream(`${base}/api/sse`)
  t.teardown(() => stream.destroy())
  t.match(endpointOf(await stream.next()), /^\/api\/messages\?sessionId=/, 'no double slash')
})

t.test('prefixes of enclosing scopes count too', async (t) => {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(async (scope) => { await scope.register(mcp, { prefix: '/mcp' } as never) }, { prefix: '/v1' })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const stream = await openRawStream(`${base}/v1/mcp/sse`)
  t.teardown(() => stream.destroy())
  t.match(endpointOf(await stream.next()), /^\/v1\/mcp\/messages\?sessionId=/)
})

t.test('sessions belong to the principal that opened them', async (t) => {
  const { app, base } = await listeningCatalogApp(t, { auth: { type: 'apikey', options: { keys: [KEY_A, KEY_B] } } })
  const refused = await openRawStream(`${base}/sse`)
  t.teardown(() => refused.destroy())
  t.equal(refused.response.statusCode, 401, 'no key, no stream')

  const { client } = await connectSse(`${base}/sse`, { headers: { 'x-api-key': KEY_A } })
  t.teardown(() => client.close())
  const whoami = await client.callTool({ name: 'whoami', arguments: {} })
  const principal = JSON.parse((whoami.content as Array<{ text: string }>)[0]?.text ?? '{}')
  t.equal(principal.method, 'apikey', 'the handler sees the principal of the stream')
  t.match(principal.subject, /^apikey:/)

  const stream = await openRawStream(`${base}/sse`, { 'x-api-key': KEY_A })
  t.teardown(() => stream.destroy())
  const messages = endpointOf(await stream.next())
  const ping = { jsonrpc: '2.0', id: 1, method: 'ping' }
  const stranger = await app.inject({ method: 'POST', url: messages, headers: { 'content-type': 'application/json', 'x-api-key': KEY_B }, payload: ping })
  t.equal(stranger.statusCode, 403, 'another key cannot post into the session')
  t.same(stranger.json(), { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Forbidden: the session belongs to another principal' } })
  const owner = await app.inject({ method: 'POST', url: messages, headers: { 'content-type': 'application/json', 'x-api-key': KEY_A }, payload: ping })
  t.equal(owner.statusCode, 202, 'the owner can')
})
