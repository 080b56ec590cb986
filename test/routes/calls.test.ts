// Must-show 2-4 of issue 21: route tools called by the official SDK clients (v1 over Streamable
// HTTP and legacy SSE, v2 pinned to 2026-07-28) answer what a direct inject() of the route
// answers; the caller's credential reaches the route, which decides; other headers only when
// allow-listed; route refusals, validation errors and failures come back as tool errors.
import t, { type Test } from 'tap'
import { STATUS_CODES } from 'node:http'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import type { FastifyInstance, InjectOptions } from 'fastify'
import { connectSse, connectStreamable } from '../helpers/clients.js'
import { ADMIN, doc, READER, routesApp } from '../helpers/routes-app.js'

type CallTool = (name: string, args: Record<string, unknown>) => Promise<Record<string, unknown>>

interface Caller {
  label: string
  connect: (base: string, headers: Record<string, string>) => Promise<{ call: CallTool, close: () => Promise<void> }>
}

const CALLERS: Caller[] = [
  {
    label: 'SDK v1, Streamable HTTP (2025-11-25)',
    async connect (base, headers) {
      const { client } = await connectStreamable(`${base}/mcp`, { headers })
      return { call: async (name, args) => await client.callTool({ name, arguments: args }) as Record<string, unknown>, close: async () => { await client.close() } }
    }
  },
  {
    label: 'SDK v1, legacy SSE',
    async connect (base, headers) {
      const { client } = await connectSse(`${base}/sse`, { headers })
      return { call: async (name, args) => await client.callTool({ name, arguments: args }) as Record<string, unknown>, close: async () => { await client.close() } }
    }
  },
  {
    label: 'SDK v2 pinned to 2026-07-28',
    async connect (base, headers) {
      const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
      await client.connect(new ModernTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
      return { call: async (name, args) => await client.callTool({ name, arguments: args }) as Record<string, unknown>, close: async () => { await client.close() } }
    }
  }
]

/** The fields a tool result is made of (a 2026 answer carries `resultType` besides). */
function resultOf (result: Record<string, unknown>): Record<string, unknown> {
  const { content, structuredContent, isError } = result
  return { content, ...(structuredContent === undefined ? {} : { structuredContent }), ...(isError === undefined || isError === false ? {} : { isError }) }
}

/** What the tool must answer, from what the route answers when called directly. */
async function direct (app: FastifyInstance, options: InjectOptions): Promise<{ status: number, payload: string, json: () => unknown, raw: Buffer }> {
  const response = await app.inject({ ...options, headers: { authorization: `Bearer ${ADMIN}`, ...options.headers } })
  return { status: response.statusCode, payload: response.payload, json: () => response.json(), raw: response.rawPayload }
}

for (const caller of CALLERS) {
  t.test(caller.label, async (t) => {
    const { app, calls } = await routesApp(t)
    const base = await app.listen({ port: 0, host: '127.0.0.1' })
    const admin = await caller.connect(base, { authorization: `Bearer ${ADMIN}`, 'x-tenant': 'acme', 'x-secret': 'hush', cookie: 'sid=s3cr3t' })
    t.teardown(admin.close)

    t.test('results equal a direct inject() of the route', async (t) => {
      const json = async (name: string, args: Record<string, unknown>, options: InjectOptions): Promise<void> => {
        const route = await direct(app, options)
        t.equal(route.status < 300, true, `${name}: the route answers 2xx directly`)
        t.strictSame(resultOf(await admin.call(name, args)), { content: [{ type: 'text', text: route.payload }], structuredContent: route.json() }, name)
      }
      await json('getUser', { id: 1 }, { method: 'GET', url: '/users/1' })
      await json('getUser', { id: 1, withAddress: true }, { method: 'GET', url: '/users/1?withAddress=true' })
      await json('put_users_id', { id: 1, name: 'Ada' }, { method: 'PUT', url: '/users/1', payload: { name: 'Ada' } })
      await json('get_v2_stats', {}, { method: 'GET', url: '/v2/stats' })
      await json('get_files', { wildcard: 'docs/a b.txt' }, { method: 'GET', url: '/files/docs/a%20b.txt' })
      await json('patch_users_id_notes', { params: { id: '7' }, query: { version: 3 }, body: { version: 'v3', text: 'hello' } },
        { method: 'PATCH', url: '/users/7/notes?version=3', payload: { version: 'v3', text: 'hello' } })

      const readme = await direct(app, { method: 'GET', url: '/readme' })
      t.strictSame(resultOf(await admin.call('get_readme', {})), { content: [{ type: 'text', text: readme.payload }] }, 'text stays text')
      const logo = await direct(app, { method: 'GET', url: '/logo' })
      t.strictSame(resultOf(await admin.call('get_logo', {})), { content: [{ type: 'image', data: logo.raw.toString('base64'), mimeType: 'image/png' }] }, 'an image is an image block')
      const zip = await direct(app, { method: 'GET', url: '/export' })
      t.strictSame(resultOf(await admin.call('get_export', {})), {
        content: [{ type: 'resource', resource: { uri: `${base}/export`, mimeType: 'application/zip', blob: zip.raw.toString('base64') } }]
      }, 'other bytes are a blob')
      const missing = await direct(app, { method: 'GET', url: '/users/999' })
      t.strictSame(resultOf(await admin.call('getUser', { id: 999 })), {
        content: [{ type: 'text', text: `404 Not Found: ${missing.payload}` }], isError: true
      }, 'a 4xx is a tool error with the status and the route\'s body')
    })

    t.test('the caller\'s credential reaches the route, and the route decides', async (t) => {
      t.strictSame(resultOf(await admin.call('announce', { text: 'release at noon' })), {
        content: [{ type: 'text', text: '{"posted":"release at noon"}' }], structuredContent: { posted: 'release at noon' }
      }, 'an admin may post')
      const reader = await caller.connect(base, { authorization: `Bearer ${READER}` })
      t.teardown(reader.close)
      const refused = await app.inject({ method: 'POST', url: '/admin/announcements', headers: { authorization: `Bearer ${READER}` }, payload: { text: 'x' } })
      t.equal(refused.statusCode, 403)
      t.strictSame(resultOf(await reader.call('announce', { text: 'x' })), {
        content: [{ type: 'text', text: `403 Forbidden: ${refused.payload}` }], isError: true
      }, 'a reader gets the route\'s own 403 body')
      t.match(refused.payload, /bob may not post announcements/)
    })

    t.test('only the credential and the allow-listed headers reach the route', async (t) => {
      const result = await admin.call('get_echo_headers', { 'x-trace': 'trace-1' })
      const seen = result.structuredContent as Record<string, string>
      t.equal(seen.authorization, `Bearer ${ADMIN}`, 'the verified credential')
      t.equal(seen['x-tenant'], 'acme', 'an allow-listed header')
      t.equal(seen['x-trace'], 'trace-1', 'a header argument of the route\'s headers schema')
      t.notOk('x-secret' in seen, 'a header outside the allow-list never arrives')
      t.notOk('cookie' in seen, 'cookies are credentials: never passed unless listed')
      t.same(Object.keys(seen).filter((name) => name.startsWith('mcp-')), [], 'no mcp-* header')
      t.equal(seen.host, 'localhost:80', 'the host is the in-process request\'s, not the client\'s')
    })

    t.test('validation: the tool refuses first; the route\'s own 400 comes back as a tool error', async (t) => {
      const before = calls.get('POST /transfers') ?? 0
      const invalid = resultOf(await admin.call('post_transfers', { from: 'a', to: 'b', amount: 0 }))
      t.equal(invalid.isError, true)
      t.match((invalid.content as Array<{ text: string }>)[0]?.text, /^Invalid arguments for tool post_transfers: arguments\.amount: must be >= 1/)
      t.equal(calls.get('POST /transfers') ?? 0, before, 'the route was not called')

      const route = await direct(app, { method: 'POST', url: '/transfers', payload: { from: 'a', to: 'a', amount: 5 } })
      t.equal(route.status, 400)
      t.strictSame(resultOf(await admin.call('post_transfers', { from: 'a', to: 'a', amount: 5 })), {
        content: [{ type: 'text', text: `400 ${STATUS_CODES[400] as string}: ${route.payload}` }], isError: true
      }, 'the route\'s message, as it sent it')
    })

    t.test('a route that throws: a tool error without internals', async (t) => {
      const route = await direct(app, { method: 'GET', url: '/boom' })
      t.match(route.payload, /hunter2/, 'the route itself lets its message out')
      const failed = resultOf(await admin.call('get_boom', {}))
      t.strictSame(failed, { content: [{ type: 'text', text: '500 Internal Server Error' }], isError: true })
      t.notMatch(JSON.stringify(failed), /hunter2|10\.0\.0\.5|ECONNREFUSED|at /)
    })
  })
}

t.test('a cancelled call ends at once, while the route runs on', async (t: Test) => {
  let release = (): void => {}
  const gate = new Promise<void>((resolve) => { release = resolve })
  let entered = (): void => {}
  const started = new Promise<void>((resolve) => { entered = resolve })
  let ranToEnd = false
  let finish = (): void => {}
  const finished = new Promise<void>((resolve) => { finish = resolve })
  const { app } = await routesApp(t, { maxInflightRequests: 1 }, (app) => {
    app.get('/slow', { schema: doc({ tags: ['tools'] }) }, async () => {
      entered()
      await gate
      ranToEnd = true
      finish()
      return { done: true }
    })
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { client } = await connectStreamable(`${base}/mcp`, { headers: { authorization: `Bearer ${ADMIN}` } })
  t.teardown(() => client.close())

  const controller = new AbortController()
  const call = client.callTool({ name: 'get_slow', arguments: {} }, undefined, { signal: controller.signal })
  await started
  controller.abort()
  await t.rejects(call, 'the client gave up')
  // One request in flight at most on this session: this call is served only once the cancelled
  // one has ended on the server, though its route still waits at the gate.
  const next = await client.callTool({ name: 'getUser', arguments: { id: 1 } })
  t.same(next.structuredContent, { id: 1, name: 'Ada' }, 'the session is free again')
  t.equal(ranToEnd, false, 'the route is still running')
  release()
  let timer: NodeJS.Timeout | undefined
  await Promise.race([finished, new Promise((resolve) => { timer = setTimeout(resolve, 5000).unref() })])
  clearTimeout(timer)
  t.equal(ranToEnd, true, 'the route ran to its end')
})
