// The Tasks extension end to end over Streamable HTTP: a real listener, real sockets, the 2026-07-28
// wire as a client sends it (headers and _meta), API keys for two principals.
import t, { type Test } from 'tap'
import { MemoryTaskStore, type MCPPluginOptions } from '../../src/index.js'
import { modern, postModern, type ModernAnswer } from '../helpers/modern.js'
import { serve } from '../helpers/serve.js'
import { poll as pollUntil, until } from '../helpers/wait.js'

const ALICE_KEY = 'alice-key-0123456789abcdef'
const BOB_KEY = 'bob-key-0123456789abcdefgh'
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

/** The app behind API keys, and a 2026-07-28 client: `rpc` answers one request, `poll` reads a task until `done`. */
async function tasksApp (t: Test, options: Partial<MCPPluginOptions> = {}) {
  const { app, base } = await serve(t, { name: 'tasks-http', version: '1.0.0', auth: { type: 'apikey', options: { keys: [ALICE_KEY, BOB_KEY] } }, ...options })
  let nextId = 1
  async function rpc (method: string, params: Record<string, unknown>, { key = ALICE_KEY, capabilities = TASKS as Record<string, unknown> } = {}): Promise<ModernAnswer> {
    return await postModern(`${base}/mcp`, modern(nextId++, method, params, { 'io.modelcontextprotocol/clientCapabilities': capabilities }), { 'x-api-key': key })
  }
  async function poll (taskId: string, done: (task: any) => boolean, key = ALICE_KEY): Promise<ModernAnswer> {
    return await pollUntil(async () => await rpc('tasks/get', { taskId }, { key }), (answer) => answer.body.error !== undefined || done(answer.body.result), { what: `task ${taskId}` })
  }
  return { app, base, rpc, poll }
}

const terminal = (task: any): boolean => ['completed', 'failed', 'cancelled'].includes(task.status)

t.test('discover advertises the extension; a task-augmented call is polled to completion', async (t) => {
  const { app, rpc, poll } = await tasksApp(t)
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
  const { app, rpc } = await tasksApp(t)
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
  await until(() => aborted, { what: "the handler's signal to abort" })
  t.pass("the handler's signal aborted")
  const refused = await rpc('tools/call', { name: 'forever', arguments: {} }, { capabilities: {} })
  t.equal(refused.status, 400, '-32021 is a 400 on HTTP')
  t.equal(refused.body.error.code, -32021)
})

t.test('another principal gets "not found" for every task method', async (t) => {
  const { app, base, rpc, poll } = await tasksApp(t)
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
  const anonymous = await fetch(`${base}/mcp`, { method: 'POST' })
  t.equal(anonymous.status, 401, 'and without a key there is no access at all')
})

t.test('a task expires after its TTL', async (t) => {
  let skew = 0
  const store = new MemoryTaskStore({ now: () => Date.now() + skew })
  t.teardown(() => store.close())
  const { app, rpc, poll } = await tasksApp(t, { tasks: { ttlMs: 120_000, pollIntervalMs: 250 }, taskStore: store })
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
  const { app, rpc } = await tasksApp(t, { tasks: { maxTasksPerPrincipal: 2 } })
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  for (let i = 0; i < 2; i++) t.equal((await rpc('tools/call', { name: 'job', arguments: {} })).body.result.resultType, 'task')
  const refused = await rpc('tools/call', { name: 'job', arguments: {} })
  t.same(refused.body.error, { code: -32603, message: 'Task limit reached: this client has 2 tasks already; retry once some have expired', data: { limit: 'tasks.maxTasksPerPrincipal', max: 2 } })
  t.equal((await rpc('tools/call', { name: 'job', arguments: {} }, { key: BOB_KEY })).body.result.resultType, 'task')
  t.equal((await rpc('tools/call', { name: 'job', arguments: {} }, { capabilities: {} })).body.result.content[0].text, 'ok')
})

t.test('Mcp-Name must name the task', async (t) => {
  const { app, base, rpc } = await tasksApp(t)
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  const { taskId } = (await rpc('tools/call', { name: 'job', arguments: {} })).body.result
  const body = modern(1, 'tasks/get', { taskId }, { 'io.modelcontextprotocol/clientCapabilities': TASKS })
  const answer = await postModern(`${base}/mcp`, body, { 'mcp-name': 'another-task', 'x-api-key': ALICE_KEY })
  t.equal(answer.status, 400)
  t.equal(answer.body.error.code, -32020)
})
