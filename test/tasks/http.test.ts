// The Tasks extension end to end over Streamable HTTP: a real listener, real sockets, the 2026-07-28
// wire as a client sends it (headers and _meta), API keys for two principals.
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import mcp, { MemoryTaskStore } from '../../src/index.js'

const ALICE_KEY = 'alice-key-0123456789abcdef'
const BOB_KEY = 'bob-key-0123456789abcdefgh'
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

interface Answer { status: number, body: any }

async function serve (t: Test, options: Record<string, unknown> = {}) {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'tasks-http', version: '1.0.0', auth: { type: 'apikey', options: { keys: [ALICE_KEY, BOB_KEY] } }, ...options })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  let nextId = 1
  /** One 2026-07-28 request, headers mirroring the body as SEP-2243 requires. */
  async function rpc (method: string, params: Record<string, unknown>, { key = ALICE_KEY, capabilities = TASKS as Record<string, unknown> } = {}): Promise<Answer> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      'x-api-key': key
    }
    const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined
    if (typeof name === 'string') headers['mcp-name'] = name
    const body = {
      jsonrpc: '2.0',
      id: nextId++,
      method,
      params: {
        ...params,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': capabilities,
          'io.modelcontextprotocol/clientInfo': { name: 'raw-http', version: '0' }
        }
      }
    }
    const response = await fetch(`${base}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
    const text = await response.text()
    const json = response.headers.get('content-type')?.includes('text/event-stream') === true
      ? JSON.parse(text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).pop() ?? 'null')
      : JSON.parse(text)
    return { status: response.status, body: json }
  }
  async function poll (taskId: string, done: (task: any) => boolean, key = ALICE_KEY): Promise<Answer> {
    for (;;) {
      const answer = await rpc('tasks/get', { taskId }, { key })
      if (answer.body.error !== undefined || done(answer.body.result)) return answer
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  }
  return { app, rpc, poll }
}

const terminal = (task: any): boolean => ['completed', 'failed', 'cancelled'].includes(task.status)

t.test('discover advertises the extension; a task-augmented call is polled to completion', async (t) => {
  const { app, rpc, poll } = await serve(t)
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  app.mcp.tool({ name: 'report', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    ctx.progress(1, 2, 'gathering')
    await gate
    return { content: [{ type: 'text', text: `report for ${ctx.auth?.kind}` }], structuredContent: { pages: 3 } }
  })
  const discovered = await rpc('server/discover', {})
  t.same(discovered.body.result.capabilities.extensions, { 'io.modelcontextprotocol/tasks': {} })
  t.notOk('tasks' in discovered.body.result.capabilities, 'no 2025-style tasks capability')

  const created = await rpc('tools/call', { name: 'report', arguments: {} })
  t.equal(created.status, 200)
  t.equal(created.body.result.resultType, 'task')
  const { taskId } = created.body.result
  const working = await poll(taskId, (task) => task.statusMessage === 'gathering')
  t.equal(working.body.result.status, 'working')
  t.equal(working.body.result.resultType, 'complete')
  release()
  const done = await poll(taskId, terminal)
  t.equal(done.body.result.status, 'completed')
  t.same(done.body.result.result.structuredContent, { pages: 3 })
  t.equal(done.body.result.result.content[0].text, 'report for key', 'the handler saw the principal of the request that created it')
})

t.test('a task cancelled over HTTP stops its handler', async (t) => {
  const { app, rpc } = await serve(t)
  let aborted = false
  app.mcp.tool({ name: 'forever', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    aborted = true
    return { content: [] }
  })
  const { taskId } = (await rpc('tools/call', { name: 'forever', arguments: {} })).body.result
  const ack = await rpc('tasks/cancel', { taskId })
  t.equal(ack.status, 200)
  t.equal(ack.body.result.resultType, 'complete')
  t.notOk('taskId' in ack.body.result || 'status' in ack.body.result, 'an empty ack')
  t.equal((await rpc('tasks/get', { taskId })).body.result.status, 'cancelled')
  // eslint-disable-next-line no-unmodified-loop-condition -- set by a callback while this waits
  while (!aborted) await new Promise((resolve) => setTimeout(resolve, 2))
  t.pass("the handler's signal aborted")
  const refused = await rpc('tools/call', { name: 'forever', arguments: {} }, { capabilities: {} })
  t.equal(refused.status, 400, '-32021 is a 400 on HTTP')
  t.equal(refused.body.error.code, -32021)
})

t.test('another principal gets "not found" for every task method', async (t) => {
  const { app, rpc, poll } = await serve(t)
  app.mcp.tool({ name: 'mine', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: "alice's data" }] }))
  const { taskId } = (await rpc('tools/call', { name: 'mine', arguments: {} })).body.result
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update']) {
    const answer = await rpc(method, { taskId, inputResponses: {} }, { key: BOB_KEY })
    t.equal(answer.body.error.code, -32602, `${method}: -32602`)
    t.match(answer.body.error.message, /Task not found/)
    t.notOk(JSON.stringify(answer.body).includes("alice's data"))
  }
  const own = await poll(taskId, terminal)
  t.equal(own.body.result.result.content[0].text, "alice's data", 'the owner still reads it')
  const unknown = await rpc('tasks/get', { taskId: '00000000-0000-4000-8000-000000000000' }, { key: BOB_KEY })
  t.same(unknown.body.error, (await rpc('tasks/get', { taskId }, { key: BOB_KEY })).body.error, 'a foreign task looks exactly like a missing one')
  const anonymous = await fetch(new URL('/mcp', `http://127.0.0.1:${(app.server.address() as any).port}`), { method: 'POST' })
  t.equal(anonymous.status, 401, 'and without a key there is no access at all')
})

t.test('a task expires after its TTL', async (t) => {
  let skew = 0
  const store = new MemoryTaskStore({ now: () => Date.now() + skew })
  t.teardown(() => store.close())
  const { app, rpc, poll } = await serve(t, { tasks: { ttlMs: 120_000, pollIntervalMs: 250 }, taskStore: store })
  app.mcp.tool({ name: 'quick', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  const created = (await rpc('tools/call', { name: 'quick', arguments: {} })).body.result
  t.equal(created.ttlMs, 120_000)
  t.equal(created.pollIntervalMs, 250)
  t.equal((await poll(created.taskId, terminal)).body.result.status, 'completed')
  skew = 120_000
  const expired = await rpc('tasks/get', { taskId: created.taskId })
  t.equal(expired.body.error.code, -32602)
  t.match(expired.body.error.message, /Task not found/)
})

t.test('the per-principal bound refuses with a clear error; other principals and sync calls go on', async (t) => {
  const { app, rpc } = await serve(t, { tasks: { maxTasksPerPrincipal: 2 } })
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  for (let i = 0; i < 2; i++) t.equal((await rpc('tools/call', { name: 'job', arguments: {} })).body.result.resultType, 'task')
  const refused = await rpc('tools/call', { name: 'job', arguments: {} })
  t.same(refused.body.error, { code: -32603, message: 'Task limit reached: this client has 2 tasks already; retry once some have expired', data: { limit: 'tasks.maxTasksPerPrincipal', max: 2 } })
  t.equal((await rpc('tools/call', { name: 'job', arguments: {} }, { key: BOB_KEY })).body.result.resultType, 'task')
  t.equal((await rpc('tools/call', { name: 'job', arguments: {} }, { capabilities: {} })).body.result.content[0].text, 'ok')
})

t.test('Mcp-Name must name the task', async (t) => {
  const { app, rpc } = await serve(t)
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  const { taskId } = (await rpc('tools/call', { name: 'job', arguments: {} })).body.result
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tasks/get',
    'mcp-name': 'another-task',
    'x-api-key': ALICE_KEY
  }
  const body = { jsonrpc: '2.0', id: 1, method: 'tasks/get', params: { taskId, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': TASKS } } }
  const address = app.server.address() as { port: number }
  const response = await fetch(`http://127.0.0.1:${address.port}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
  t.equal(response.status, 400)
  t.equal(((await response.json()) as any).error.code, -32020)
})
