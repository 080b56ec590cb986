// Access rules with JWT principals, through the official clients on every HTTP leg: a caller with
// `files:read` lists only what it may call (2025 Streamable HTTP, legacy SSE, 2026-07-28), and a
// `files:write` call is refused 403 with the step-up challenge before its handler runs.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { connectSse, connectStreamable } from '../helpers/clients.js'
import { jwtAuth, READER_TOOLS, registerAuthzCatalog, runs, token } from '../helpers/authz.js'
import { headersFor, modern } from '../helpers/modern.js'
import mcp from '../../src/index.js'
import { openRawStream } from '../helpers/sse-raw.js'

const reader = token('alice', 'files:read', { tenant: 'acme' })
const writer = token('alice', 'files:read files:write', { tenant: 'acme' })

async function authzServer (t: Test): Promise<string> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'authz', version: '1.0.0', auth: jwtAuth })
  registerAuthzCatalog(app.mcp)
  return await app.listen({ port: 0, host: '127.0.0.1' })
}

const url = await authzServer(t)
const names = (tools: Array<{ name: string }>): string[] => tools.map((tool) => tool.name).sort()

t.test('2025 Streamable HTTP: the list is what the caller may call; a write is 403 before its handler', async (t) => {
  const { client } = await connectStreamable(`${url}/mcp`, { headers: { authorization: `Bearer ${reader}` } })
  t.teardown(() => client.close())
  t.same(names((await client.listTools()).tools), READER_TOOLS)
  const before = runs.get('write_file') ?? 0
  // The SDK client without an OAuth provider cannot step up: it reports the 403 it got.
  await t.rejects(client.callTool({ name: 'write_file', arguments: { path: '/a' } }), { code: 403, message: /Insufficient scope/ })
  t.equal(runs.get('write_file') ?? 0, before, 'the handler never ran')
  t.match(await client.callTool({ name: 'read_file', arguments: { path: '/a' } }), { content: [{ text: 'contents of /a' }] })
})

t.test('the 403 itself: insufficient_scope naming every scope the operation needs, and the -32005 error', async (t) => {
  const { client, transport } = await connectStreamable(`${url}/mcp`, { headers: { authorization: `Bearer ${reader}` } })
  t.teardown(() => client.close())
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'write_file', arguments: { path: '/a' } } })
  })
  t.equal(response.status, 403)
  t.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="files:read files:write"')
  t.same(await response.json(), {
    jsonrpc: '2.0',
    id: 7,
    error: { code: -32005, message: 'Insufficient scope: this operation needs files:read files:write', data: { requiredScopes: ['files:read', 'files:write'], missingScopes: ['files:write'] } }
  })
  // The wider token gets through on the same session.
  const widened = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': transport.sessionId ?? '', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'write_file', arguments: { path: '/a' } } })
  })
  t.equal(widened.status, 200)
  t.match(await widened.json(), { id: 8, result: { content: [{ text: 'wrote /a' }] } })
})

t.test('legacy SSE: filtered list; the POST of a write is 403 instead of 202', async (t) => {
  const { client } = await connectSse(`${url}/sse`, { headers: { authorization: `Bearer ${reader}` } })
  t.teardown(() => client.close())
  t.same(names((await client.listTools()).tools), READER_TOOLS)
  const before = runs.get('write_file') ?? 0
  // The SDK's SSE client does not step up: it reports the POST's 403.
  await t.rejects(client.callTool({ name: 'write_file', arguments: { path: '/a' } }), /403/)

  const stream = await openRawStream(`${url}/sse`, { authorization: `Bearer ${reader}` })
  t.teardown(() => { stream.destroy() })
  const endpoint = /data: (.*)/.exec(await stream.next())?.[1] ?? ''
  const initialize = await fetch(new URL(endpoint, url), {
    method: 'POST',
    headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  })
  t.equal(initialize.status, 202)
  const response = await fetch(new URL(endpoint, url), {
    method: 'POST',
    headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'write_file', arguments: { path: '/a' } } })
  })
  t.equal(response.status, 403)
  t.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="files:read files:write"')
  t.match(await response.json(), { id: 9, error: { code: -32005, data: { missingScopes: ['files:write'] } } })
  t.equal(runs.get('write_file') ?? 0, before, 'the handler never ran')
})

t.test('2026-07-28: filtered list, private; the write is 403 with the challenge', async (t) => {
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new ModernTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${reader}` } } }))
  t.teardown(() => client.close())
  t.same(names((await client.listTools()).tools), READER_TOOLS)
  const before = runs.get('write_file') ?? 0
  await t.rejects(client.callTool({ name: 'write_file', arguments: { path: '/a' } }))
  t.equal(runs.get('write_file') ?? 0, before, 'the handler never ran')

  const call = modern(3, 'tools/call', { name: 'write_file', arguments: { path: '/a' } })
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers: { ...headersFor(call), authorization: `Bearer ${reader}` }, body: JSON.stringify(call) })
  t.equal(response.status, 403)
  t.equal(response.headers.get('www-authenticate'), 'Bearer error="insufficient_scope", scope="files:read files:write"')
  t.match(await response.json(), { id: 3, error: { code: -32005 } })
})
