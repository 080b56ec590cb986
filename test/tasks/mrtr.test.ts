// Multi-round-trip questions first, then a task (SEP-2663's MRTR-then-task composition, the tool
// option `execution.taskStart: 'handler'` and `ctx.startTask()`), and what an input_required answer
// does to the handler it interrupts. Real listener, raw 2026-07-28 requests over fetch.
import t, { type Test } from 'tap'
import { MCPServer } from '../../src/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { modern, postModern } from '../helpers/modern.js'
import { serve } from '../helpers/serve.js'
import { poll } from '../helpers/wait.js'

const TASKS = { 'io.modelcontextprotocol/tasks': {} }
const ASKER = { elicitation: {}, extensions: TASKS }
const NAME_SCHEMA = { type: 'object', properties: { user_name: { type: 'string' } }, required: ['user_name'] }

/** The app, and a 2026-07-28 client: `rpc` answers one request, `settled` reads a task until it is terminal. */
async function tasksApp (t: Test) {
  const { app, base } = await serve(t, { name: 'tasks-mrtr', version: '1.0.0' })
  let nextId = 1
  async function rpc (method: string, params: Record<string, unknown>, capabilities: Record<string, unknown> = ASKER): Promise<any> {
    const { status, body } = await postModern(`${base}/mcp`, modern(nextId++, method, params, { 'io.modelcontextprotocol/clientCapabilities': capabilities }))
    return { status, ...body }
  }
  /** Reads task `taskId` until its status is `status` (by default: any terminal one). */
  async function settled (taskId: string, status?: string): Promise<any> {
    const done = (task: any): boolean => status === undefined ? ['completed', 'failed', 'cancelled'].includes(task.status) : task.status === status
    return await poll(async () => (await rpc('tasks/get', { taskId })).result, done, { what: `task ${taskId} ${status ?? 'settled'}` })
  }
  return { app, rpc, settled }
}

t.test('taskStart handler: input_required rounds first, then the call answers with a task carrying the answer', async (t) => {
  const { app, rpc, settled } = await tasksApp(t)
  let runs = 0
  app.mcp.tool({ name: 'greet_later', execution: { taskSupport: 'required', taskStart: 'handler' } }, async (_args, ctx) => {
    runs++
    const answer = await ctx.elicit({ mode: 'form', message: 'Your name?', requestedSchema: NAME_SCHEMA })
    const first = await ctx.startTask()
    const again = await ctx.startTask()
    // From here the ctx is the task's: progress becomes its statusMessage.
    ctx.progress(1, 2, 'greeting')
    return { content: [{ type: 'text', text: `Hello, ${String((answer.content as Record<string, unknown> | undefined)?.user_name)} (${String(first)}/${String(again)})` }] }
  })

  const round1 = await rpc('tools/call', { name: 'greet_later', arguments: {} })
  t.equal(round1.status, 200)
  t.equal(round1.result.resultType, 'input_required')
  t.notOk('taskId' in round1.result, 'no task before the questions are answered')
  const key = Object.keys(round1.result.inputRequests)[0] as string
  t.equal(round1.result.inputRequests[key].method, 'elicitation/create')

  const round2 = await rpc('tools/call', {
    name: 'greet_later',
    arguments: {},
    inputResponses: { [key]: { action: 'accept', content: { user_name: 'Alice' } } },
    requestState: round1.result.requestState
  })
  t.equal(round2.result.resultType, 'task')
  t.type(round2.result.taskId, 'string')
  t.notOk('requestState' in round2.result, 'the rounds\' requestState stays out of the task envelope')
  t.notOk('inputRequests' in round2.result)
  const done = await settled(round2.result.taskId)
  t.equal(done.status, 'completed')
  t.same(done.result.content, [{ type: 'text', text: 'Hello, Alice (true/true)' }])
  t.equal(runs, 2, 'the handler ran once per round; the task is the rest of the second run')
})

t.test('taskStart handler: after startTask the handler\'s signal, asks and cancel are the task\'s', async (t) => {
  const { app, rpc, settled } = await tasksApp(t)
  let aborted!: (reason: unknown) => void
  const abortSeen = new Promise<unknown>((resolve) => { aborted = resolve })
  app.mcp.tool({ name: 'confirm_then_wait', execution: { taskSupport: 'optional', taskStart: 'handler' } }, async (_args, ctx) => {
    await ctx.startTask()
    // Asked as the task's input (tasks/update), not as a round of the call, which is over.
    const ok = await ctx.elicit({ mode: 'form', message: 'Go?', requestedSchema: { type: 'object', properties: { go: { type: 'boolean' } } } })
    if (ok.action !== 'accept') return { content: [{ type: 'text', text: 'declined' }] }
    ctx.signal.addEventListener('abort', () => { aborted(ctx.signal.reason) }, { once: true })
    await new Promise(() => {})
    return { content: [] }
  })
  const created = await rpc('tools/call', { name: 'confirm_then_wait', arguments: {} })
  t.equal(created.result.resultType, 'task')
  const { taskId } = created.result
  const task = await settled(taskId, 'input_required')
  const key = Object.keys(task.inputRequests)[0] as string
  t.equal(task.inputRequests[key].method, 'elicitation/create')
  t.match((await rpc('tasks/update', { taskId, inputResponses: { [key]: { action: 'accept', content: { go: true } } } })).result, { resultType: 'complete' })
  // Wait until the handler is parked on its signal, then cancel.
  await settled(taskId, 'working')
  await rpc('tasks/cancel', { taskId })
  const reason = await abortSeen
  t.match(reason, { message: /cancelled/ })
  t.equal((await settled(taskId)).status, 'cancelled')
})

t.test('taskStart handler: a run that never calls startTask answers the call; other clients get false', async (t) => {
  const { app, rpc } = await tasksApp(t)
  const seen: boolean[] = []
  app.mcp.tool({ name: 'maybe', execution: { taskSupport: 'optional', taskStart: 'handler' } }, async (args, ctx) => {
    if ((args as Record<string, unknown>).escalate === true) seen.push(await ctx.startTask())
    return { content: [{ type: 'text', text: 'inline' }] }
  })
  const plain = await rpc('tools/call', { name: 'maybe', arguments: {} })
  t.equal(plain.result.resultType, 'complete')
  t.same(plain.result.content, [{ type: 'text', text: 'inline' }])
  // A client without the extension: startTask() resolves false and the call answers normally.
  const noTasks = await rpc('tools/call', { name: 'maybe', arguments: { escalate: true } }, { elicitation: {} })
  t.equal(noTasks.result.resultType, 'complete')
  t.same(seen, [false])
})

t.test('taskStart handler on a 2025 session: startTask() is false, the handler answers in the call', async (t) => {
  const { base } = await serve(t, { name: 'legacy', version: '1.0.0' }, (app) => {
    app.mcp.tool({ name: 'maybe', execution: { taskSupport: 'optional', taskStart: 'handler' } }, async (_args, ctx) => ({
      content: [{ type: 'text', text: `task: ${String(await ctx.startTask())}` }]
    }))
  })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  const result = await client.callTool({ name: 'maybe', arguments: {} })
  t.same(result.content, [{ type: 'text', text: 'task: false' }])
})

t.test('execution.taskStart is checked when the tool is registered', async (t) => {
  const server = new MCPServer({ name: 'x', version: '1.0.0' })
  t.throws(() => server.tool({ name: 'a', execution: { taskSupport: 'optional', taskStart: 'later' as never } }, async () => ({ content: [] })),
    { code: 'FST_MCP_INVALID_DEFINITION', message: /execution\.taskStart must be 'call' or 'handler'; got "later"/ })
  t.throws(() => server.tool({ name: 'b', execution: { taskSupport: 'optional', start: 'call' } as never }, async () => ({ content: [] })),
    { message: /execution has no option "start"; it takes taskSupport and taskStart/ })
})

t.test('an input_required answer aborts ctx.signal, and does not wait for a handler that goes on', async (t) => {
  const { app, rpc } = await tasksApp(t)
  let signal: AbortSignal | undefined
  let stopped!: () => void
  const handlerStopped = new Promise<void>((resolve) => { stopped = resolve })
  app.mcp.tool({ name: 'ask_and_work' }, async (_args, ctx) => {
    signal = ctx.signal
    // The ask is not awaited: the handler goes on with work that only its signal can stop.
    ctx.elicit({ mode: 'form', message: 'Name?', requestedSchema: NAME_SCHEMA }).catch(() => {})
    await new Promise<void>((resolve) => { ctx.signal.addEventListener('abort', () => { resolve() }, { once: true }) })
    stopped()
    return { content: [{ type: 'text', text: 'never sent' }] }
  })
  const answer = await rpc('tools/call', { name: 'ask_and_work', arguments: {} })
  t.equal(answer.result.resultType, 'input_required')
  t.equal(signal?.aborted, true, 'aborted once the answer is out')
  t.match(signal?.reason, { name: 'InputRequiredError' })
  await handlerStopped
})

t.test('an input_required answer after the handler returned aborts the signal too', async (t) => {
  const { app, rpc } = await tasksApp(t)
  let signal: AbortSignal | undefined
  app.mcp.tool({ name: 'ask' }, async (_args, ctx) => {
    signal = ctx.signal
    const answer = await ctx.elicit({ mode: 'form', message: 'Name?', requestedSchema: NAME_SCHEMA })
    return { content: [{ type: 'text', text: String(answer.action) }] }
  })
  const answer = await rpc('tools/call', { name: 'ask', arguments: {} })
  t.equal(answer.result.resultType, 'input_required')
  t.equal(signal?.aborted, true)
  // A complete answer leaves the signal alone.
  const key = Object.keys(answer.result.inputRequests)[0] as string
  const done = await rpc('tools/call', { name: 'ask', arguments: {}, inputResponses: { [key]: { action: 'decline' } }, requestState: answer.result.requestState })
  t.equal(done.result.resultType, 'complete')
  t.equal(signal?.aborted, false)
})

t.test('ctx.session on a 2026-07-28 request is the empty string, in the call and in the task it becomes', async (t) => {
  const { app, rpc, settled } = await tasksApp(t)
  const seen: unknown[] = []
  app.mcp.tool({ name: 'where', execution: { taskSupport: 'optional', taskStart: 'handler' } }, async (_args, ctx) => {
    seen.push(ctx.session)
    await ctx.startTask()
    seen.push(ctx.session, typeof ctx.requestId)
    return { content: [{ type: 'text', text: `session "${ctx.session}"` }] }
  })
  const created = await rpc('tools/call', { name: 'where', arguments: {} })
  const done = await settled(created.result.taskId)
  t.same(done.result.content, [{ type: 'text', text: 'session ""' }])
  t.same(seen, ['', '', 'number'], 'a string, empty: no session, nothing undefined')
})
