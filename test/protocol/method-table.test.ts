// The method table (src/protocol/methods/table.ts) is what the server does, column by column: each
// row is checked against behaviour on the wire (the dispatcher and the 2026-07-28 ladder on
// Streamable HTTP and stdio, the Mcp-Name check, the caching hints, the scale-out sync), so a list
// that drifted from the table fails here. A row added without probes below fails too.
import { PassThrough } from 'node:stream'
import t, { type Test } from 'tap'
import { METHOD_TABLE, type MethodRow } from '../../src/protocol/methods/table.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { protocolExtensions } from '../../src/extensions/index.js'
import { StdioRunner } from '../../src/transports/stdio/runner.js'
import { registerCatalog } from '../fixtures/catalog.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { openRawStream, type RawStream } from '../helpers/sse-raw.js'
import { BOTH, openSession, raw } from '../helpers/streamable-raw.js'
import { until } from '../helpers/wait.js'
import { collectJsonLines } from '../helpers/json-lines.js'
import { MODERN, meta } from '../helpers/modern.js'
import { memoryRig, startCluster } from '../helpers/scale-cluster.js'

const ROWS = Object.entries(METHOD_TABLE) as Array<[string, MethodRow]>
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'table', version: '0' } }

/** What the probes need from the server under test: a task that is still running. */
interface ProbeEnv { taskId: string }

/** A valid call of each method, answered with a complete result wherever the method is served. */
const PROBES: Record<string, (env: ProbeEnv) => Record<string, unknown>> = {
  initialize: () => INIT_PARAMS,
  ping: () => ({}),
  'logging/setLevel': () => ({ level: 'info' }),
  'server/discover': () => ({}),
  'tools/list': () => ({}),
  'tools/call': () => ({ name: 'add', arguments: { a: 1, b: 2 } }),
  'resources/list': () => ({}),
  'resources/templates/list': () => ({}),
  'resources/read': () => ({ uri: 'docs://readme' }),
  'resources/subscribe': () => ({ uri: 'docs://readme' }),
  'resources/unsubscribe': () => ({ uri: 'docs://readme' }),
  'prompts/list': () => ({}),
  'prompts/get': () => ({ name: 'greet', arguments: { who: 'Ada' } }),
  'completion/complete': () => ({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }),
  'tasks/get': ({ taskId }) => ({ taskId }),
  'tasks/update': ({ taskId }) => ({ taskId, inputResponses: {} }),
  // Last of the task methods (the table's order): it ends the task the others read.
  'tasks/cancel': ({ taskId }) => ({ taskId }),
  'subscriptions/listen': () => ({ notifications: {} }),
  'skills/list': () => ({}),
  'skills/get': () => ({ uri: 'skill://table-skill/SKILL.md' }),
  'resources/directory/read': () => ({ uri: 'skill://table-skill' })
}

/** The skill the Skills methods' probes read (served with `skills.directoryRead`). */
const TABLE_SKILL = { name: 'table-skill', files: { 'SKILL.md': '---\nname: table-skill\ndescription: Probed by the method table test\n---\n' } }

/** A call whose handler asks the client a question, for each method the table lets ask. */
const ASKING: Record<string, Record<string, unknown>> = {
  'tools/call': { name: 'asks' },
  'prompts/get': { name: 'asks' },
  'resources/read': { uri: 'asks://here' }
}

const QUESTION = { message: 'Sure?', requestedSchema: { type: 'object', properties: {} } }

interface Answer { status: number, message: any }

/** The JSON-RPC messages of SSE text, in order; a priming event (empty data) or a keep-alive comment carries none. */
function messagesOf (sse: string): any[] {
  return sse.split('\n').filter((line) => line.startsWith('data: ') && line.length > 6).map((line) => JSON.parse(line.slice(6)))
}

/** A 2026-07-28 server on a real socket; `post` sends one request as a conforming client does. */
async function modernServer (t: Test) {
  // One per-method override beside the defaults: the overrides are keyed by the cacheable methods.
  const cache = { ttlMs: 60_000, scope: 'public' as const, methods: { 'resources/read': { scope: 'private' as const } } }
  const { app, base } = await listeningCatalogApp(t, { cache, skills: { directoryRead: true } })
  app.mcp.skill(TABLE_SKILL)
  app.mcp.tool({ name: 'asks' }, async (_args, ctx) => {
    await ctx.elicit(QUESTION)
    return { content: [] }
  })
  app.mcp.prompt({ name: 'asks' }, async (_args, ctx) => {
    await ctx.elicit(QUESTION)
    return { messages: [] }
  })
  app.mcp.resource({ uri: 'asks://here', name: 'asks' }, async (uri, ctx) => {
    await ctx.elicit(QUESTION)
    return { contents: [{ uri, text: '' }] }
  })
  app.mcp.tool({ name: 'long_task', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await new Promise((resolve) => { ctx.signal.addEventListener('abort', resolve, { once: true }) })
    return { content: [] }
  })
  let nextId = 1
  async function post (method: string, params: Record<string, unknown>, options: { mcpName?: string, capabilities?: Record<string, unknown> } = {}): Promise<Answer> {
    const id = nextId++
    const body = { jsonrpc: '2.0', id, method, params: { ...params, _meta: meta({ 'io.modelcontextprotocol/clientCapabilities': options.capabilities ?? {} }) } }
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method }
    // What a conforming client mirrors: the field the table names, when the body carries it.
    const from = (METHOD_TABLE as Record<string, MethodRow>)[method]?.mcpNameFrom
    const mirrored = from === undefined ? undefined : params[from]
    const mcpName = options.mcpName ?? (typeof mirrored === 'string' ? mirrored : undefined)
    if (mcpName !== undefined) headers['mcp-name'] = mcpName
    const response = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
    const text = await response.text()
    const messages = response.headers.get('content-type')?.startsWith('text/event-stream') === true ? messagesOf(text) : [JSON.parse(text)]
    return { status: response.status, message: messages.find((message) => message.id === id) }
  }
  return { post }
}

t.test('2026-07-28 on Streamable HTTP: generations, caching, Mcp-Name and input requests as the table says', async (t) => {
  const { post } = await modernServer(t)
  const created = await post('tools/call', { name: 'long_task', arguments: {} }, { capabilities: TASKS })
  t.equal(created.message.result?.resultType, 'task', 'a running task for the task methods')
  const env: ProbeEnv = { taskId: created.message.result.taskId }

  for (const [method, row] of ROWS) {
    const probe = PROBES[method]?.(env) ?? {}
    if (!row.generations.includes('modern')) {
      const answer = await post(method, probe)
      t.equal(answer.status, 404, `${method}: absent from 2026-07-28, HTTP 404`)
      t.equal(answer.message?.error?.code, -32601, `${method}: -32601`)
      continue
    }
    if (row.mcpNameFrom !== undefined) {
      const mismatched = await post(method, probe, { mcpName: 'another-name', capabilities: TASKS })
      t.equal(mismatched.status, 400, `${method}: an Mcp-Name other than params.${row.mcpNameFrom} is HTTP 400`)
      t.equal(mismatched.message?.error?.code, -32020, `${method}: -32020 HeaderMismatch`)
    } else {
      const ignored = await post(method, probe, { mcpName: 'another-name', capabilities: TASKS })
      t.not(ignored.message?.error?.code, -32020, `${method}: no Mcp-Name to check, whatever the header says`)
    }
    const answer = await post(method, probe, { capabilities: TASKS })
    t.equal(answer.status, 200, `${method}: served on 2026-07-28`)
    const result = answer.message?.result ?? {}
    t.equal(result.resultType, 'complete', `${method}: a complete result`)
    if (row.cacheable === true) {
      const cacheScope = method === 'resources/read' ? 'private' : 'public'
      t.match(result, { ttlMs: 60_000, cacheScope }, `${method}: caching hints from the cache option`)
    } else {
      t.notOk('cacheScope' in result, `${method}: no caching hints`)
    }
  }

  for (const [method, params] of Object.entries(ASKING)) {
    const asked = await post(method, params, { capabilities: { elicitation: {} } })
    t.equal(asked.message?.result?.resultType, 'input_required', `${method}: a question answers input_required`)
    t.match(Object.values(asked.message?.result?.inputRequests ?? {}), [{ method: 'elicitation/create', params: { message: 'Sure?' } }])
  }
})

/** The stdio transport over in-memory pipes: a legacy client's raw JSON-RPC lines. */
function legacyStdio (t: Test) {
  const core = new ProtocolServer({ name: 'table', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: { error: () => {} }, extensions: protocolExtensions({ directoryRead: true }) })
  registerCatalog(core)
  core.skill(TABLE_SKILL)
  const input = new PassThrough()
  const output = new PassThrough()
  const runner = new StdioRunner(core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  t.teardown(async () => { await runner.stop() })
  const lines = collectJsonLines(output)
  let nextId = 1
  async function call (method: string, params: Record<string, unknown>): Promise<any> {
    const id = nextId++
    input.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n')
    await until(() => lines.some((line) => line.id === id), { timeoutMs: 5000, what: `the answer to ${method}` })
    return lines.find((line) => line.id === id)
  }
  return { call }
}

t.test('legacy on stdio: what answers before initialize, and the generation\'s methods after it', async (t) => {
  const { call } = legacyStdio(t)
  const env: ProbeEnv = { taskId: 'no-such-task' }
  // initialize last: it ends the time before initialize.
  const ordered = [...ROWS.filter(([name]) => name !== 'initialize'), ...ROWS.filter(([name]) => name === 'initialize')]
  for (const [method, row] of ordered) {
    const answer = await call(method, PROBES[method]?.(env) ?? {})
    if (!row.generations.includes('legacy')) t.equal(answer.error?.code, -32601, `${method}: absent from legacy sessions`)
    else if (row.beforeInitialize === true) t.ok('result' in answer, `${method}: answered before initialize`)
    else t.match(answer.error, { code: -32600, message: /not initialized/ }, `${method}: initialize first`)
  }
  for (const [method, row] of ROWS) {
    if (method === 'initialize') continue
    const answer = await call(method, PROBES[method]?.(env) ?? {})
    if (row.generations.includes('legacy')) t.ok('result' in answer, `${method}: served on a legacy session`)
    else t.equal(answer.error?.code, -32601, `${method}: absent from legacy sessions`)
  }
})

/** The next frame of a stream, failing once `deadline` (a Date.now() time) has passed. */
async function nextFrame (stream: RawStream, deadline: number): Promise<string> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new Error('stream 0: no frame before the deadline')) }, Math.max(deadline - Date.now(), 0))
    timer.unref()
  })
  try {
    return await Promise.race([stream.next(), expired])
  } finally {
    clearTimeout(timer)
  }
}

/** The messages of a stream until `done` says stop, failing after `timeoutMs`. */
async function readUntil (stream: RawStream, done: (seen: any[]) => boolean, timeoutMs = 5000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs
  const seen: any[] = []
  while (!done(seen)) {
    seen.push(...messagesOf(await nextFrame(stream, deadline)))
  }
  return seen
}

/**
 * Two instances; a legacy session opened on the first, which also holds its stream 0 (what the
 * session hears outside its requests: resource updates, broadcasts). `call` POSTs to one instance.
 */
async function clusterSession (t: Test) {
  const cluster = await startCluster(t, await memoryRig(), (app) => { registerCatalog(app.mcp) }, {}, 2)
  const [b0 = '', b1 = ''] = cluster.bases
  const session = await openSession(`${b0}/mcp`)
  const headers = { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
  const stream0 = await openRawStream(`${b0}/mcp`, headers)
  t.teardown(() => { stream0.destroy() })
  // The priming event: the GET holds stream 0 from here on.
  await nextFrame(stream0, Date.now() + 5000)
  let nextId = 1
  /** Every message of the answer to one request, sent to instance `index`. */
  async function call (index: number, method: string, params: Record<string, unknown>): Promise<any[]> {
    const reply = await raw(`${[b0, b1][index] ?? ''}/mcp`, 'POST', { ...BOTH, ...headers }, { jsonrpc: '2.0', id: nextId++, method, params })
    const body = await reply.text()
    return String(reply.headers['content-type']).startsWith('text/event-stream') ? messagesOf(body) : [JSON.parse(body)]
  }
  /** A resource update of docs://readme, then a broadcast, from every instance; what stream 0 heard until the last broadcast. */
  async function notifyEverywhere (): Promise<any[]> {
    for (const app of cluster.apps) {
      app.mcp.notifyResourceUpdated('docs://readme')
      app.mcp.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'marker' } })
    }
    const heard = await readUntil(stream0, (seen) => seen.filter((m) => m.params?.data === 'marker').length === cluster.apps.length)
    return heard.filter((message) => message.method === 'notifications/resources/updated')
  }
  return { call, notifyEverywhere }
}

/**
 * What another instance must see after each synced method: the request goes to the second
 * instance, its effect is looked for on the first (which already holds a copy of the session).
 */
const SYNC_PROBES: Record<string, (t: Test) => Promise<void>> = {
  'logging/setLevel': async (t) => {
    const { call } = await clusterSession(t)
    const logsOf = (messages: any[]): unknown[] => messages.filter((m) => m.method === 'notifications/message').map((m) => m.params.data)
    t.ok('result' in (await call(1, 'logging/setLevel', { level: 'warning' }))[0])
    t.same(logsOf(await call(0, 'tools/call', { name: 'progress', arguments: { steps: 1 } })), [], 'the info log is below the level set on the other instance')
    t.ok('result' in (await call(1, 'logging/setLevel', { level: 'debug' }))[0])
    t.same(logsOf(await call(0, 'tools/call', { name: 'progress', arguments: { steps: 1 } })), [{ done: 1 }], 'and passes once the level is lowered there')
  },
  'resources/subscribe': async (t) => {
    const { call, notifyEverywhere } = await clusterSession(t)
    t.ok('result' in (await call(1, 'resources/subscribe', { uri: 'docs://readme' }))[0])
    t.equal((await notifyEverywhere()).length, 2, 'the instance holding stream 0 knows of the subscription made on the other')
  },
  'resources/unsubscribe': async (t) => {
    const { call, notifyEverywhere } = await clusterSession(t)
    t.ok('result' in (await call(0, 'resources/subscribe', { uri: 'docs://readme' }))[0])
    t.ok('result' in (await call(1, 'resources/unsubscribe', { uri: 'docs://readme' }))[0])
    t.same(await notifyEverywhere(), [], 'the instance holding stream 0 knows the subscription ended on the other')
  }
}

t.test('scale-out: the effect of every synced method reaches the other instances', async (t) => {
  for (const [method, probe] of Object.entries(SYNC_PROBES)) await t.test(method, probe)
})

t.test('every row of the table has its probes here', async (t) => {
  t.same(Object.keys(PROBES).sort(), ROWS.map(([name]) => name).sort(), 'one valid call per method')
  t.same(Object.keys(ASKING).sort(), ROWS.filter(([, row]) => row.inputRequests === true).map(([name]) => name).sort(), 'one asking call per method that may answer input_required')
  t.same(Object.keys(SYNC_PROBES).sort(), ROWS.filter(([, row]) => row.syncedAcrossInstances === true).map(([name]) => name).sort(), 'one cross-instance check per synced method')
})
