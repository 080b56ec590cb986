import type { Test } from 'tap'
import { Type } from '../../src/index.js'
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ElicitRequestSchema, CreateMessageRequestSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { registerCatalog, probes } from '../fixtures/catalog.js'
import { registerSamplingTools } from '../fixtures/sampling.js'
import { registerPlacementTools } from '../fixtures/scale-tools.js'
import { runCatalogTable } from './catalog-table.js'
import { clusterSse, clusterStreamable, startCluster, type EngineRig } from './scale-cluster.js'
import { BOTH, messageOf, openSession, raw, type RawReply } from './streamable-raw.js'
import { headersFor, modern } from './modern.js'
import { openRawStream, type RawStream } from './sse-raw.js'
import { sleep, within } from './wait.js'

interface Frame { id: string | undefined, data: string | undefined }

function parseFrame (frame: string): Frame {
  const id = /^id: (.*)$/m.exec(frame)?.[1]
  const data = /^data: (.*)$/m.exec(frame)?.[1]
  return { id, data }
}

/** The next frame that carries an event id (keep-alive comments skipped). */
async function nextEvent (stream: RawStream): Promise<Frame> {
  return parseFrame(await stream.nextMatching((frame) => parseFrame(frame).id !== undefined))
}

/** What a stream-0 message says, in short: a broadcast's data, `progress:n` or `log`. */
function said (frame: Frame): string {
  const message = JSON.parse(frame.data ?? '{}')
  if (message.method === 'notifications/progress') return `progress:${String(message.params.progress)}`
  if (message.method === 'notifications/message') return typeof message.params.data === 'string' ? message.params.data : 'log'
  return String(message.method)
}

/** A tools/call from a client that takes only JSON: its progress and log travel on stream 0. */
async function jsonOnlyCall (base: string, session: string, id: number, steps: number): Promise<void> {
  const response = await fetch(`${base}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'progress', arguments: { steps }, _meta: { progressToken: `t${id}` } } })
  })
  await response.text()
}

/** What every instance of the routing suite serves: the catalog, the sampling tools, and tools the tests pace or locate. */
function register (app: FastifyInstance, index: number): void {
  registerCatalog(app.mcp)
  registerSamplingTools(app.mcp)
  registerPlacementTools(app.mcp, `i${index}`)
  app.mcp.tool({ name: 'wait_end', description: 'Waits until aborted', inputSchema: Type.Object({ tag: Type.String() }) }, async ({ tag }, ctx) => {
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve()
      else ctx.signal.addEventListener('abort', () => { resolve() }, { once: true })
    })
    probes.aborted.push(tag)
    return { content: [] }
  })
}

/** A 2026-07-28 listen stream on each instance, for tool list changes and `docs://readme` updates, acknowledged. */
async function listenEverywhere (t: Test, bases: readonly string[]): Promise<RawReply[]> {
  const streams: RawReply[] = []
  for (const base of bases) {
    const body = modern(`L-${base}`, 'subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] } })
    const stream = await raw(`${base}/mcp`, 'POST', headersFor(body), body)
    t.teardown(() => { stream.destroy() })
    t.equal(messageOf(await stream.next()).method, 'notifications/subscriptions/acknowledged')
    streams.push(stream)
  }
  return streams
}

/**
 * The routing suite: three instances behind a round-robin balancer, the official SDK client over
 * Streamable HTTP and legacy SSE. `rig` makes the engines (in-process or Redis).
 */
export function routingSuite (t: Test, makeRig: (t: Test) => Promise<EngineRig>): void {
  t.test('Streamable HTTP: the catalog, every call on another instance than the one before', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterStreamable(t, cluster)
    await runCatalogTable(t, client)
    const ran = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const result = await client.callTool({ name: 'where', arguments: {} })
      ran.add((result.content as Array<{ text: string }>)[0]?.text ?? '')
    }
    t.same([...ran].sort(), ['i0', 'i1', 'i2'], 'calls of one session ran on every instance')
    t.ok(cluster.hits.every((hits) => hits > 5), `every instance served requests (${cluster.hits.join(', ')})`)
  })

  t.test('Streamable HTTP: progress and logs of a call, a log level set on another instance', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterStreamable(t, cluster)
    const logs: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => { logs.push(notification.params.data) })
    await client.setLoggingLevel('warning')
    const progress: number[] = []
    await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
    t.same(progress, [1, 2, 3], 'progress on the call\'s own stream')
    t.same(logs, [], 'the info log is below the level set (on another instance)')
    await client.setLoggingLevel('debug')
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'progress', arguments: { steps: 1 } })
    t.same(logs, [{ done: 1 }, { done: 1 }, { done: 1 }], 'the new level holds on every instance')
  })

  t.test('Streamable HTTP: elicitation and sampling, the replies POSTed to other instances', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterStreamable(t, cluster)
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }))
    client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'four' } }))
    for (let i = 0; i < 3; i++) {
      t.same(await client.callTool({ name: 'ask_user', arguments: { message: 'Name?' } }), { content: [{ type: 'text', text: 'user accept: {"name":"Ada"}' }] })
      t.same(await client.callTool({ name: 'ask_model', arguments: { question: '2+2?' } }), { content: [{ type: 'text', text: 'm said: four' }] })
    }
  })

  t.test('Streamable HTTP: a cancel landing on another instance aborts the handler', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterStreamable(t, cluster)
    for (const tag of ['scale-c1', 'scale-c2', 'scale-c3']) {
      const controller = new AbortController()
      const call = client.callTool({ name: 'wait_end', arguments: { tag } }, undefined, { signal: controller.signal })
      await sleep(30)
      controller.abort('enough')
      await t.rejects(call)
      t.ok(await within(() => probes.aborted.includes(tag), { timeoutMs: 4000 }), `${tag}: the executor saw the abort`)
    }
  })

  t.test('Streamable HTTP: a cancel that overtakes its request (another instance, first) still cancels it', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const [b0 = '', b1 = '', b2 = ''] = cluster.bases
    const session = await openSession(`${b0}/mcp`)
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
    const cancel = await fetch(`${b1}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 77, reason: 'changed my mind' } }) })
    t.equal(cancel.status, 202)
    const call = await fetch(`${b2}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 77, method: 'tools/call', params: { name: 'wait_end', arguments: { tag: 'scale-early' } } }) })
    t.equal(call.status, 202, 'cancelled: no response (MCP), the one non-answer clients expect')
    t.ok(probes.aborted.includes('scale-early'), 'the handler saw the abort at once')
  })

  t.test('Streamable HTTP: subscriptions, resource updates and broadcasts from any instance', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const clients = []
    for (let i = 0; i < 4; i++) clients.push((await clusterStreamable(t, cluster)).client)
    // The GET streams are opened after initialize; let them connect (each claims stream 0 somewhere).
    await sleep(100)
    const updates: string[][] = clients.map(() => [])
    const logs: unknown[][] = clients.map(() => [])
    clients.forEach((client, i) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates[i]?.push(n.params.uri) })
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs[i]?.push(n.params.data) })
    })
    const [first, second] = clients
    await first?.subscribeResource({ uri: 'docs://readme' })
    await second?.subscribeResource({ uri: 'docs://readme' })
    await second?.unsubscribeResource({ uri: 'docs://readme' })
    for (const app of cluster.apps) app.mcp.notifyResourceUpdated('docs://readme')
    for (let i = 0; i < 3; i++) cluster.apps[i]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: `from i${i}` } })
    t.ok(await within(() => logs.every((l) => l.length >= 3), { timeoutMs: 4000 }), 'every client heard the three broadcasts')
    await sleep(50)
    // Three instances broadcasting at once: their order is the order the engine stored them in
    // (on Redis, three connections racing), the same for every client, not the order of the calls.
    const order = logs[0] ?? []
    t.same([...order].sort(), ['from i0', 'from i1', 'from i2'], 'each broadcast exactly once')
    t.same(logs, clients.map(() => order), 'in the same order on every client')
    t.same(updates, [['docs://readme', 'docs://readme', 'docs://readme'], [], [], []], 'updates reach the subscribed session only, once per notify')
  })

  t.test('Streamable HTTP: closeStream mid-call, resumed on another instance', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterStreamable(t, cluster)
    for (let i = 0; i < 3; i++) {
      const progress: number[] = []
      const result = await client.callTool({ name: 'closer', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) }, resetTimeoutOnProgress: true })
      t.match((result.content as Array<{ text: string }>)[0]?.text, /^closed on i\d$/, 'the result arrives on the resumed stream')
      t.same(progress, [1, 2, 3], 'progress before and after the close, none lost or doubled')
    }
  })

  t.test('Streamable HTTP: DELETE on another instance ends the session everywhere', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client, transport } = await clusterStreamable(t, cluster)
    const sessionId = transport.sessionId ?? ''
    const pending = client.callTool({ name: 'wait_end', arguments: { tag: 'scale-deleted' } }).catch((error: unknown) => error)
    await sleep(30)
    await transport.terminateSession()
    t.ok(await within(() => probes.aborted.includes('scale-deleted'), { timeoutMs: 4000 }), 'the running handler was aborted')
    for (const base of cluster.bases) {
      const response = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'ping' })
      })
      t.equal(response.status, 404, `${base}: the ended session is unknown`)
    }
    void pending
  })

  t.test('stream 0: claimed by a GET anywhere, resumed after Last-Event-ID on another instance, nothing lost or doubled', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const [b0 = '', b1 = '', b2 = ''] = cluster.bases
    const session = await openSession(`${b0}/mcp`)
    const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
    const first = await openRawStream(`${b1}/mcp`, headers)
    t.teardown(() => { first.destroy() })
    const priming = await nextEvent(first)
    t.match(priming.id, /^0_[\d-]+_[\d-]+\.p$/, 'a priming event naming the log and fan-out positions')
    cluster.apps[0]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'a' } })
    await jsonOnlyCall(b2, session, 1, 2)
    const live: Frame[] = []
    while (live.length < 4) live.push(await nextEvent(first))
    t.same(live.map(said), ['a', 'progress:1', 'progress:2', 'log'], 'a broadcast from i0 and a call on i2 reach the stream held by i1')
    const last = live.at(-1)?.id ?? ''
    first.destroy()
    await sleep(30)
    // Missed while no stream was connected: kept in the session's log and the fan-out.
    cluster.apps[1]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'b' } })
    await jsonOnlyCall(b0, session, 2, 1)
    // A tool added on every instance meanwhile: three changes published, one re-list to do.
    for (const app of cluster.apps) app.mcp.tool({ name: 'missed', description: 'Added while the stream was away', inputSchema: Type.Object({}) }, async () => ({ content: [] }))
    await sleep(50)
    const second = await openRawStream(`${b2}/mcp`, { ...headers, 'last-event-id': last })
    t.teardown(() => { second.destroy() })
    const replayed: Frame[] = []
    while (replayed.length < 4) replayed.push(await nextEvent(second))
    t.same(replayed.map(said).sort(), ['b', 'log', 'notifications/tools/list_changed', 'progress:1'], 'the missed events, replayed on i2, none of the ones seen before, the list change once')
    cluster.apps[0]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'c' } })
    t.same(said(await nextEvent(second)), 'c', 'then live on i2')
    const ids = [...live, ...replayed].map((frame) => frame.id)
    t.equal(new Set(ids).size, ids.length, 'every event id is new')
    // A plain GET elsewhere takes stream 0 over: the holder ends its stream.
    const released = new Promise<void>((resolve) => { second.response.once('end', resolve) })
    const third = await openRawStream(`${b0}/mcp`, headers)
    t.teardown(() => { third.destroy() })
    await nextEvent(third)
    await released
    t.pass('the previous holder released its stream')
    cluster.apps[2]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'd' } })
    t.same(said(await nextEvent(third)), 'd', 'the new holder writes what comes next')
  })

  t.test('idle expiry is the store\'s TTL: a session used on any instance lives, an idle one ends everywhere', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register, { idleTimeoutMs: 1000 })
    const { client } = await clusterStreamable(t, cluster)
    const { transport: idle } = await clusterStreamable(t, cluster)
    for (let i = 0; i < 12; i++) {
      await client.callTool({ name: 'where', arguments: {} })
      await sleep(120)
    }
    t.pass('calls spread over 1.4 s (past the idle timeout) kept the busy session alive')
    const ping = async (base: string, session: string): Promise<number> => (await fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    })).status
    // Each instance in turn: the one holding the session's GET stream keeps its copy until its next
    // sweep (or the next use) finds the record gone, so it may answer once more in between (seen
    // under a loaded npm test); then it ends the session everywhere.
    for (const base of cluster.bases) {
      await within(async () => await ping(base, idle.sessionId ?? '') === 404, { timeoutMs: 6000, everyMs: 100 })
      t.equal(await ping(base, idle.sessionId ?? ''), 404, 'the idle session expired everywhere')
    }
  })

  t.test('sessionInitTimeoutMs: a session initialized on one instance and used only on the others lives; one never used again ends', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register, { sessionInitTimeoutMs: 400 })
    const [b0 = '', b1 = '', b2 = ''] = cluster.bases
    const post = async (base: string, session: string | undefined, body: unknown): Promise<RawReply> => {
      const reply = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-protocol-version': '2025-11-25', ...(session === undefined ? {} : { 'mcp-session-id': session }) }, body)
      await reply.text()
      return reply
    }
    const ping = async (base: string, session: string): Promise<number> => (await post(base, session, { jsonrpc: '2.0', id: 1, method: 'ping' })).status
    const initialize = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }
    const used = String((await post(b0, undefined, initialize)).headers['mcp-session-id'])
    const abandoned = String((await post(b0, undefined, initialize)).headers['mcp-session-id'])
    // A round-robin balancer sends the client's next requests elsewhere: i0 never sees it again.
    t.equal((await post(b1, used, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202)
    const statuses: number[] = []
    for (let i = 0; i < 8; i++) {
      statuses.push(await ping(b1, used))
      await sleep(100)
    }
    t.same(statuses, [200, 200, 200, 200, 200, 200, 200, 200], 'past i0\'s sessionInitTimeoutMs, the session works on i1')
    t.equal(await ping(b2, used), 200, 'and on i2')
    t.equal(cluster.apps[0]?.mcp.sessionCount, 0, 'i0 dropped its copies: their slots are free')
    t.equal(await ping(b0, used), 200, 'and i0 serves the session again from its record')
    for (const base of cluster.bases) t.equal(await ping(base, abandoned), 404, 'a session whose client never came back ended with its record')
  })

  t.test('2026-07-28 listen streams on every instance hear resource updates and change broadcasts from any instance, once', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const streams = await listenEverywhere(t, cluster.bases)
    cluster.apps[1]?.mcp.notifyResourceUpdated('docs://readme')
    cluster.apps[2]?.mcp.broadcast({ method: 'notifications/tools/list_changed' })
    for (const stream of streams) {
      t.same([messageOf(await stream.next()).method, messageOf(await stream.next()).method],
        ['notifications/resources/updated', 'notifications/tools/list_changed'], 'each once, in order')
    }
  })

  t.test('tools/list_changed: a tool added on every instance is announced once per client; one added on one instance reaches every client', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const clients = [
      (await clusterStreamable(t, cluster)).client,
      (await clusterStreamable(t, cluster)).client,
      (await clusterSse(t, cluster)).client
    ]
    // Each session is used on every instance, so that each holds a copy of it.
    for (const client of clients) for (let i = 0; i < 3; i++) await client.callTool({ name: 'where', arguments: {} })
    const heard = clients.map(() => 0)
    clients.forEach((client, i) => { client.setNotificationHandler(ToolListChangedNotificationSchema, () => { heard[i] = (heard[i] ?? 0) + 1 }) })
    const listens = await listenEverywhere(t, cluster.bases)
    await sleep(100)
    const late = { name: 'late', description: 'Added at run time', inputSchema: Type.Object({}) }
    for (const app of cluster.apps) app.mcp.tool(late, async () => ({ content: [] }))
    t.ok(await within(() => heard.every((n) => n >= 1), { timeoutMs: 4000 }), 'every client heard the change')
    for (const stream of listens) t.equal(messageOf(await stream.next()).method, 'notifications/tools/list_changed', 'and every listen stream')
    await sleep(150)
    t.same(heard, [1, 1, 1], 'once each, although three instances made the change')
    // A marker after the change: a second list_changed would come before it.
    const marker = async (): Promise<void> => {
      cluster.apps[0]?.mcp.notifyResourceUpdated('docs://readme')
      for (const stream of listens) t.equal(messageOf(await stream.next()).method, 'notifications/resources/updated', 'once on each listen stream')
    }
    await marker()

    cluster.apps[1]?.mcp.tool({ name: 'solo', description: 'Added on one instance', inputSchema: Type.Object({}) }, async () => ({ content: [] }))
    t.ok(await within(() => heard.every((n) => n >= 2), { timeoutMs: 4000 }), 'a change made on one instance reaches every client')
    for (const stream of listens) t.equal(messageOf(await stream.next()).method, 'notifications/tools/list_changed', 'and every listen stream, on every instance')
    await sleep(150)
    t.same(heard, [2, 2, 2])
    await marker()
  })

  t.test('maxSessions counts the sessions opened on an instance, not its copies of the others\'', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register, { maxSessions: 2 })
    const [b0 = '', b1 = ''] = cluster.bases
    const opened = [await openSession(`${b0}/mcp`), await openSession(`${b0}/mcp`)]
    const call = async (base: string, session: string): Promise<number> => {
      const reply = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'where', arguments: {} } })
      await reply.text()
      return reply.status
    }
    // Used on i1 too: i1 now holds copies of both.
    for (const session of opened) t.equal(await call(b1, session), 200)
    t.equal(cluster.apps[0]?.mcp.sessionCount, 2, 'i0 opened two')
    t.equal(cluster.apps[1]?.mcp.sessionCount, 0, 'the copies on i1 are not counted')
    const more = [await openSession(`${b1}/mcp`), await openSession(`${b1}/mcp`)]
    t.equal(cluster.apps[1]?.mcp.sessionCount, 2, 'so i1 still opens its own two')
    for (const session of more) t.equal(await call(b0, session), 200, 'which work everywhere')
    const full = await raw(`${b1}/mcp`, 'POST', BOTH, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } })
    await full.text()
    t.equal(full.status, 503, 'and a third is refused: the bound holds for what it counts')
  })

  t.test('unknown sessions: 404 on every instance, on both transports', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    for (const base of cluster.bases) {
      const streamable = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'no-such-session' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
      })
      t.equal(streamable.status, 404)
      t.equal(((await streamable.json()) as { error: { code: number } }).error.code, -32001)
      const legacy = await fetch(`${base}/messages?sessionId=no-such-session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"ping"}' })
      t.equal(legacy.status, 404)
    }
  })

  t.test('legacy SSE: a cancel POSTed to the stream\'s instance ahead of its request (forwarded from another) still cancels it', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const [b0 = '', b1 = ''] = cluster.bases
    const stream = await openRawStream(`${b0}/sse`)
    t.teardown(() => { stream.destroy() })
    const endpoint = /^data: (.*)$/m.exec(await stream.next())?.[1] ?? ''
    const post = async (base: string, body: Record<string, unknown>): Promise<number> => {
      const response = await fetch(`${base}${endpoint}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      await response.text()
      return response.status
    }
    t.equal(await post(b0, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } } }), 202)
    await stream.nextMatching((frame) => frame.includes('"id":0'))
    t.equal(await post(b0, { jsonrpc: '2.0', method: 'notifications/initialized' }), 202)
    t.equal(await post(b0, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'changed my mind' } }), 202, 'the cancel, first, on the stream\'s instance')
    t.equal(await post(b1, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait_end', arguments: { tag: 'sse-early-cancel' } } }), 202, 'its request, forwarded by another')
    t.ok(await within(() => probes.aborted.includes('sse-early-cancel'), { timeoutMs: 4000 }), 'the request is cancelled as it starts')
  })

  t.test('legacy SSE: the stream on one instance, every POST forwarded to it in order', async (t) => {
    const cluster = await startCluster(t, await makeRig(t), register)
    const { client } = await clusterSse(t, cluster)
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace' } }))
    // The table checks progress too, at the transport: the SDK's legacy SSE client can lose a
    // progress read in the same chunk as its answer (see catalog-table.ts).
    await runCatalogTable(t, client)
    t.same(await client.callTool({ name: 'ask_user', arguments: { message: 'Name?' } }), { content: [{ type: 'text', text: 'user accept: {"name":"Grace"}' }] }, 'elicitation, the reply forwarded')
    const controller = new AbortController()
    const call = client.callTool({ name: 'wait_end', arguments: { tag: 'scale-sse-cancel' } }, undefined, { signal: controller.signal })
    await sleep(30)
    controller.abort('enough')
    await t.rejects(call)
    t.ok(await within(() => probes.aborted.includes('scale-sse-cancel'), { timeoutMs: 4000 }), 'the cancel reached the owner')
    const logs: unknown[] = []
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params.data) })
    cluster.apps[2]?.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'to sse' } })
    t.ok(await within(() => logs.includes('to sse'), { timeoutMs: 4000 }), 'a broadcast from another instance')
    t.ok(cluster.hits.every((hits) => hits > 3), `POSTs landed on every instance (${cluster.hits.join(', ')})`)
  })
}
