// notifications/tasks on subscriptions/listen streams (Tasks extension, SEP-2663): a stream that lists
// its caller's task ids hears every status change of those tasks, as the DetailedTask tasks/get would
// answer; other principals' tasks are left out of the acknowledgement; the extension is required.
// And: a change reaching many listen streams is serialized once, not once per stream.
import t, { type Test } from 'tap'
import type { MCPPluginOptions } from '../../src/index.js'
import { headersFor, modern, postModern } from '../helpers/modern.js'
import { serve } from '../helpers/serve.js'
import { messageOf, raw, type RawReply } from '../helpers/streamable-raw.js'
import { poll } from '../helpers/wait.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} }, elicitation: {} }
const KEY_A = 'tasks-listen-key-aaaaaaaaaaaa'
const KEY_B = 'tasks-listen-key-bbbbbbbbbbbb'

/** The app, and a 2026-07-28 client of the Tasks extension: `rpc` answers one request, `listen` opens a stream. */
async function tasksApp (t: Test, options: Partial<MCPPluginOptions> = {}) {
  const { app, base } = await serve(t, { name: 'listen-tasks', version: '1.0.0', ...options })
  let nextId = 1
  const caps = (capabilities: Record<string, unknown>): Record<string, unknown> => ({ 'io.modelcontextprotocol/clientCapabilities': capabilities })
  async function rpc (method: string, params: Record<string, unknown>, headers: Record<string, string> = {}, capabilities: Record<string, unknown> = TASKS): Promise<any> {
    return (await postModern(`${base}/mcp`, modern(nextId++, method, params, caps(capabilities)), headers)).body
  }
  async function listen (id: string | number, notifications: unknown, headers: Record<string, string> = {}, capabilities: Record<string, unknown> = TASKS): Promise<RawReply> {
    const body = modern(id, 'subscriptions/listen', { notifications }, caps(capabilities))
    return await raw(`${base}/mcp`, 'POST', { ...headersFor(body), ...headers }, body)
  }
  return { app, base, rpc, listen }
}

t.test('a listen stream hears notifications/tasks for the tasks it lists, through to the result', async (t) => {
  const { app, rpc, listen } = await tasksApp(t)
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const answer = await ctx.elicit({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: {} } })
    await gate
    return { content: [{ type: 'text', text: `done: ${String(answer.action)}` }] }
  })
  const created = (await rpc('tools/call', { name: 'job', arguments: {} })).result
  t.equal(created.resultType, 'task')
  const { taskId } = created

  const stream = await listen('T1', { taskIds: [taskId, 'no-such-task'] })
  t.same(messageOf(await stream.next()), {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { taskIds: [taskId] }, _meta: { [SUB]: 'T1' } }
  }, 'only the task that exists for this caller is acknowledged')

  // The task may have reached input_required before the stream opened: poll until it has, then answer.
  const task = await poll(async () => (await rpc('tasks/get', { taskId })).result, (task) => task.status === 'input_required', { what: 'input_required' })
  const key = Object.keys(task.inputRequests)[0] as string
  await rpc('tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: {} } } })
  // input_required may have been announced too, if it came after the stream opened: with its requests.
  let working = messageOf(await stream.next())
  if (working.params.status === 'input_required') {
    t.ok(key in working.params.inputRequests, 'input_required carries the outstanding requests')
    working = messageOf(await stream.next())
  }
  t.equal(working.method, 'notifications/tasks')
  t.match(working.params, { taskId, status: 'working', _meta: { [SUB]: 'T1' } })
  t.notOk('inputRequests' in working.params)

  release()
  const done = messageOf(await stream.next())
  t.match(done.params, { taskId, status: 'completed', result: { content: [{ type: 'text', text: 'done: accept' }] }, _meta: { [SUB]: 'T1' } })
  const { _meta: _m, ...fromStream } = done.params
  const { resultType: _r, _meta: _n, ...fromGet } = (await rpc('tasks/get', { taskId })).result
  t.same(fromStream, fromGet, 'the notification carries what tasks/get answers')
  stream.destroy()
})

t.test('a cancelled task is announced; another principal\'s task is never acknowledged', async (t) => {
  const { app, rpc, listen } = await tasksApp(t, { auth: { type: 'apikey', options: { keys: [KEY_A, KEY_B] } } })
  app.mcp.tool({ name: 'forever', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
    await new Promise((_resolve, reject) => { ctx.signal.addEventListener('abort', () => { reject(ctx.signal.reason) }, { once: true }) })
    return { content: [] }
  })
  const taskId = (await rpc('tools/call', { name: 'forever', arguments: {} }, { 'x-api-key': KEY_A })).result.taskId as string

  const eavesdropper = await listen('B', { taskIds: [taskId], toolsListChanged: true }, { 'x-api-key': KEY_B })
  t.same(messageOf(await eavesdropper.next()).params.notifications, { toolsListChanged: true }, 'B does not learn A\'s task exists')

  const owner = await listen('A', { taskIds: [taskId] }, { 'x-api-key': KEY_A })
  t.same(messageOf(await owner.next()).params.notifications, { taskIds: [taskId] })
  await rpc('tasks/cancel', { taskId }, { 'x-api-key': KEY_A })
  t.match(messageOf(await owner.next()).params, { taskId, status: 'cancelled', _meta: { [SUB]: 'A' } })

  // B's stream got nothing about the task: the next thing it hears is the tool change.
  app.mcp.tool({ name: 'later' }, async () => ({ content: [] }))
  t.equal(messageOf(await eavesdropper.next()).method, 'notifications/tools/list_changed')
  eavesdropper.destroy()
  owner.destroy()
})

t.test('taskIds need the Tasks extension (-32021) and a well-formed, bounded list (-32602)', async (t) => {
  const { rpc } = await tasksApp(t, { tasks: { maxTasksPerPrincipal: 2 } })
  const listenRpc = async (notifications: unknown, capabilities: Record<string, unknown> = TASKS): Promise<any> =>
    await rpc('subscriptions/listen', { notifications }, {}, capabilities)
  const missing = await listenRpc({ taskIds: ['x'] }, {})
  t.match(missing.error, { code: -32021, data: { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } } })
  t.match((await listenRpc({ taskIds: 'x' })).error, { code: -32602, message: /taskIds must be an array/ })
  t.match((await listenRpc({ taskIds: [''] })).error, { code: -32602, message: /taskIds\[0\] must be a task id/ })
  t.match((await listenRpc({ taskIds: [42] })).error, { code: -32602, message: /taskIds\[0\]/ })
  t.match((await listenRpc({ taskIds: ['x'.repeat(129)] })).error, { code: -32602, message: /taskIds\[0\]/ })
  t.match((await listenRpc({ taskIds: ['a', 'b', 'c'] })).error, { code: -32602, message: /lists 3 tasks; at most 2/ })
  // Unknown ids only: nothing honoured, so the stream ends at once with its complete result.
  const none = await listenRpc({ taskIds: ['a'] })
  t.match(none.result, { resultType: 'complete' })
})

t.test('a change to many listen streams is serialized once, each stream with its own subscription id', async (t) => {
  const { app, listen } = await tasksApp(t)
  app.mcp.resource({ uri: 'docs://hot', name: 'hot' }, async (uri) => ({ contents: [{ uri, text: 'x' }] }))
  const streams = await Promise.all(['s1', 's2', 7].map(async (id) => await listen(id, { resourceSubscriptions: ['docs://hot'] })))
  for (const stream of streams) await stream.next()

  // Count how often the notification itself is turned into JSON while it goes out to three streams.
  const stringify = JSON.stringify
  let serialized = 0
  JSON.stringify = ((value: unknown, ...rest: unknown[]) => {
    if (typeof value === 'object' && value !== null && (value as { method?: unknown }).method === 'notifications/resources/updated') serialized++
    return (stringify as (...args: unknown[]) => string)(value, ...rest)
  }) as typeof JSON.stringify
  let reached: number
  try {
    reached = app.mcp.notifyResourceUpdated('docs://hot')
  } finally {
    JSON.stringify = stringify
  }
  t.equal(reached, 3)
  t.equal(serialized, 1, 'once for three streams')
  const got = await Promise.all(streams.map(async (stream) => messageOf(await stream.next())))
  t.same(got.map((message) => message.params), [
    { uri: 'docs://hot', _meta: { [SUB]: 's1' } },
    { uri: 'docs://hot', _meta: { [SUB]: 's2' } },
    { uri: 'docs://hot', _meta: { [SUB]: 7 } }
  ])
  for (const stream of streams) stream.destroy()
})
