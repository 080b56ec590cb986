import t from 'tap'
import { Type } from '../../src/index.js'
import { TaskLimitError } from '../../src/errors.js'
import { MemoryTaskStore } from '../../src/protocol/tasks/memory-store.js'
import type { Principal } from '../../src/protocol/principal.js'
import { memoryCore } from '../helpers/memory.js'
import { poll, sleep, until } from '../helpers/wait.js'

const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const alice: Principal = { method: 'jwt', kind: 'user', issuer: 'https://idp.example.com', subject: 'alice', scopes: [], claims: {} }
const bob: Principal = { method: 'jwt', kind: 'user', issuer: 'https://idp.example.com', subject: 'bob', scopes: [], claims: {} }

function deferred<T = void> () {
  let resolve!: (value: T) => void
  const promise = new Promise<T>((_resolve) => { resolve = _resolve })
  return { promise, resolve }
}

/** Reads tasks/get until it fails or `done` holds. */
async function pollUntil (client: { request: (m: string, p?: Record<string, unknown>) => Promise<any> }, taskId: string, done: (task: any) => boolean): Promise<any> {
  return await poll(async () => await client.request('tasks/get', { taskId }), (answer) => answer.error !== undefined || done(answer.result), { everyMs: 2, what: `task ${taskId}` })
}
/** A 2026-07-28 result without the serverInfo `_meta` every result carries. */
const bare = (result: any): any => {
  const { _meta: _m, ...rest } = result
  return rest
}
const terminal = (task: any): boolean => ['completed', 'failed', 'cancelled'].includes(task.status)

t.test('a task-augmented call answers with a flat task handle and runs detached to completion', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  const gate = deferred()
  let signal: AbortSignal | undefined
  core.tool({ name: 'slow', execution: { taskSupport: 'optional' }, inputSchema: Type.Object({ n: Type.Number() }) }, async ({ n }, ctx) => {
    signal = ctx.signal
    await gate.promise
    return { content: [{ type: 'text', text: `done ${n}` }] }
  })
  const client = modern({ capabilities: TASKS })
  const created = await client.request('tools/call', { name: 'slow', arguments: { n: 7 } })
  const handle = created.result
  t.equal(handle.resultType, 'task')
  t.equal(handle.status, 'working')
  t.match(handle.taskId, /^[0-9a-f-]{36}$/, 'an unguessable UUID')
  t.match(handle.createdAt, ISO)
  t.match(handle.lastUpdatedAt, ISO)
  t.equal(handle.ttlMs, 3_600_000)
  t.equal(handle.pollIntervalMs, 1000)
  for (const key of ['task', 'result', 'error', 'inputRequests', 'requestState', 'content', 'ttl', 'pollInterval']) {
    t.notOk(key in handle, `no ${key} on CreateTaskResult`)
  }
  t.equal(signal?.aborted, false, 'the request that created the task has ended, the task has not')

  const working = await client.request('tasks/get', { taskId: handle.taskId })
  t.same(bare(working.result), { ...bare(handle), resultType: 'complete' }, 'tasks/get finds it at once, working, without result')

  gate.resolve()
  const done = await pollUntil(client, handle.taskId, terminal)
  t.equal(done.result.status, 'completed')
  t.equal(done.result.resultType, 'complete')
  t.same(done.result.result, { content: [{ type: 'text', text: 'done 7' }] })
  t.notOk('_meta' in done.result.result, 'no related-task _meta on the inlined result')
  t.ok(Date.parse(done.result.lastUpdatedAt) >= Date.parse(done.result.createdAt))
})

t.test('who gets a task: capability, taskSupport and protocol revision', async (t) => {
  const { core, modern, connect } = memoryCore()
  t.teardown(() => core.tasks.close())
  core.tool({ name: 'sync' }, async () => ({ content: [{ type: 'text', text: 'sync' }] }))
  core.tool({ name: 'maybe', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'maybe' }] }))
  core.tool({ name: 'must', execution: { taskSupport: 'required' } }, async () => ({ content: [{ type: 'text', text: 'must' }] }))

  const declaring = modern({ capabilities: TASKS })
  const plain = modern({ capabilities: {} })
  const syncCall = await declaring.request('tools/call', { name: 'sync', arguments: {}, task: { ttl: 1000 } })
  t.same(bare(syncCall.result), { resultType: 'complete', content: [{ type: 'text', text: 'sync' }] }, 'a forbidden tool stays sync; the legacy task param is ignored')
  t.same(bare((await plain.request('tools/call', { name: 'maybe', arguments: {} })).result), { resultType: 'complete', content: [{ type: 'text', text: 'maybe' }] },
    'an optional tool answers in the request for a client without the extension')
  t.equal((await declaring.request('tools/call', { name: 'must', arguments: {} })).result.resultType, 'task')

  const refused = await plain.request('tools/call', { name: 'must', arguments: {} })
  t.equal(refused.error.code, -32021)
  t.same(refused.error.data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })

  const legacy = connect()
  await legacy.initialize('2025-11-25', TASKS)
  const legacyCall = await legacy.request('tools/call', { name: 'must', arguments: {} })
  t.equal(legacyCall.error.code, -32601, 'older revisions have no extension: a task-only tool is not callable')
  t.equal((await legacy.request('tools/call', { name: 'maybe', arguments: {} })).result.content[0].text, 'maybe', 'declaring it on 2025-11-25 enables nothing')
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    t.equal((await legacy.request(method, { taskId: 'x', inputResponses: {} })).error.code, -32601, `${method} on 2025-11-25`)
    const gated = await plain.request(method, { taskId: 'x', inputResponses: {} })
    t.equal(gated.error.code, -32021, `${method} without the extension`)
    t.same(gated.error.data, { requiredCapabilities: { extensions: { 'io.modelcontextprotocol/tasks': {} } } })
  }
  for (const method of ['tasks/result', 'tasks/list']) {
    t.equal((await declaring.request(method, { taskId: 'x' })).error.code, -32601, `${method} was removed`)
  }
  const tools = (await legacy.request('tools/list')).result.tools
  t.notOk(tools.some((tool: Record<string, unknown>) => 'execution' in tool), 'execution never reaches tools/list')
  t.equal((await declaring.request('tools/call', { name: 'maybe', arguments: 'nope' })).error.code, -32602, 'bad params are still refused before any task')
})

t.test('tool errors complete with isError; protocol errors fail with the JSON-RPC error', async (t) => {
  const { core, modern, logged } = memoryCore()
  t.teardown(() => core.tasks.close())
  core.tool({ name: 'tool-error', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'bad input' }], isError: true }))
  core.tool({ name: 'throws', execution: { taskSupport: 'optional' } }, async () => { throw new Error('disk full') })
  core.tool({ name: 'protocol', execution: { taskSupport: 'optional' } }, async () => {
    const { McpError } = await import('../../src/index.js')
    throw new McpError(-32603, 'API rate limit exceeded', { retryAfter: 3 })
  })
  core.tool({ name: 'no-content', execution: { taskSupport: 'optional' } }, async () => ({}) as never)
  const client = modern({ capabilities: TASKS })
  const start = async (name: string) => (await client.request('tools/call', { name, arguments: {} })).result.taskId as string

  const toolError = (await pollUntil(client, await start('tool-error'), terminal)).result
  t.equal(toolError.status, 'completed')
  t.same(toolError.result, { content: [{ type: 'text', text: 'bad input' }], isError: true })
  const thrown = (await pollUntil(client, await start('throws'), terminal)).result
  t.equal(thrown.status, 'completed', 'a handler that throws is a tool error, as in a request')
  t.equal(thrown.result.isError, true)
  t.match(thrown.result.content[0].text, /disk full/)
  const failed = (await pollUntil(client, await start('protocol'), terminal)).result
  t.equal(failed.status, 'failed')
  t.same(failed.error, { code: -32603, message: 'API rate limit exceeded', data: { retryAfter: 3 } })
  t.equal(failed.statusMessage, 'API rate limit exceeded')
  t.notOk('result' in failed)
  const invalid = (await pollUntil(client, await start('no-content'), terminal)).result
  t.equal(invalid.status, 'failed')
  t.equal(invalid.error.code, -32603)
  t.equal(logged.filter((entry) => entry.message === 'task failed').length, 0, 'McpErrors are answers, not server faults')
})

t.test('tasks/cancel aborts the work, settles to cancelled, and is idempotent', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  let aborted: unknown
  core.tool({ name: 'forever', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    aborted = ctx.signal.reason
    return { content: [{ type: 'text', text: 'finished anyway' }] }
  })
  const client = modern({ capabilities: TASKS })
  const { taskId } = (await client.request('tools/call', { name: 'forever', arguments: {} })).result
  const ack = await client.request('tasks/cancel', { taskId })
  t.same(bare(ack.result), { resultType: 'complete' }, 'an empty ack, no task envelope')
  const after = (await client.request('tasks/get', { taskId })).result
  t.equal(after.status, 'cancelled')
  t.equal(after.statusMessage, 'Cancelled by the client')
  t.notOk('result' in after, 'the result the handler returned after the abort is discarded')
  t.match(aborted, { message: /cancelled/ }, "the handler's signal aborted")
  t.same(bare((await client.request('tasks/cancel', { taskId })).result), { resultType: 'complete' }, 'cancel on a finished task: same ack')
  t.equal(core.tasks.runningCount, 0)
  const unknown = await client.request('tasks/cancel', { taskId: 'no-such-task' })
  t.same(unknown.error, { code: -32602, message: 'Failed to cancel task: Task not found' })
})

t.test('a task belongs to its principal: anyone else gets "not found", never "forbidden"', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  const gate = deferred()
  core.tool({ name: 'slow', execution: { taskSupport: 'optional' } }, async () => { await gate.promise; return { content: [{ type: 'text', text: 'secret' }] } })
  const owner = modern({ capabilities: TASKS, principal: alice })
  const { taskId } = (await owner.request('tools/call', { name: 'slow', arguments: {} })).result
  const sameSubjectOtherIssuer = { ...alice, issuer: 'https://other.example.com' }
  for (const [who, client] of [['bob', modern({ capabilities: TASKS, principal: bob })], ['no principal', modern({ capabilities: TASKS })],
    ['alice of another issuer', modern({ capabilities: TASKS, principal: sameSubjectOtherIssuer })]] as const) {
    t.same((await client.request('tasks/get', { taskId })).error, { code: -32602, message: 'Failed to retrieve task: Task not found' }, `${who}: get`)
    t.equal((await client.request('tasks/cancel', { taskId })).error.code, -32602, `${who}: cancel`)
    t.equal((await client.request('tasks/update', { taskId, inputResponses: {} })).error.code, -32602, `${who}: update`)
  }
  gate.resolve()
  const done = await pollUntil(owner, taskId, terminal)
  t.equal(done.result.status, 'completed', 'the foreign cancel changed nothing')
  t.equal(done.result.result.content[0].text, 'secret')

  const anonymous = modern({ capabilities: TASKS })
  const anonymousTask = (await anonymous.request('tools/call', { name: 'slow', arguments: {} })).result.taskId
  t.equal((await owner.request('tasks/get', { taskId: anonymousTask })).error.code, -32602, 'an anonymous task is not visible to a principal')
  t.equal((await anonymous.request('tasks/get', { taskId: anonymousTask })).result.taskId, anonymousTask)
})

t.test('bad task ids and inputResponses are -32602', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  const client = modern({ capabilities: TASKS })
  for (const taskId of [undefined, 42, '', 'x'.repeat(129), { id: 1 }]) {
    const answer = await client.request('tasks/get', { taskId })
    t.equal(answer.error.code, -32602, `taskId ${JSON.stringify(taskId)}`)
    t.match(answer.error.message, /params\.taskId must be a non-empty string/)
  }
  for (const inputResponses of [undefined, null, 'x', [1]]) {
    const answer = await client.request('tasks/update', { taskId: 'x', inputResponses })
    t.same(answer.error, { code: -32602, message: 'params.inputResponses must be an object' })
  }
})

t.test('elicitation inside a task: input_required, answered with tasks/update, partially too', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  core.tool({ name: 'two-questions', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const [first, second] = await Promise.all([
      ctx.elicit({ mode: 'form', message: 'First?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } }),
      ctx.elicit({ mode: 'form', message: 'Second?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })
    ])
    return { content: [{ type: 'text', text: `${(first.content as any).name} & ${(second.content as any).name}` }] }
  })
  const client = modern({ capabilities: { ...TASKS, elicitation: {} } })
  const { taskId } = (await client.request('tools/call', { name: 'two-questions', arguments: {} })).result
  const waiting = (await pollUntil(client, taskId, (task) => Object.keys(task.inputRequests ?? {}).length === 2)).result
  t.equal(waiting.status, 'input_required')
  const [k1, k2] = Object.keys(waiting.inputRequests)
  t.not(k1, k2)
  t.equal(waiting.inputRequests[k1 as string].method, 'elicitation/create')
  t.equal(waiting.inputRequests[k1 as string].params.message, 'First?')

  const ignored = await client.request('tasks/update', { taskId, inputResponses: { 'never-issued': { action: 'accept' } } })
  t.same(bare(ignored.result), { resultType: 'complete' }, 'unknown keys are ignored with an ack')
  const badValue = await client.request('tasks/update', { taskId, inputResponses: { [k1 as string]: 'yes' } })
  t.equal(badValue.error.code, -32602, 'an answer that is not an object is refused')
  t.match(badValue.error.message, /must be an object \(the result of elicitation\/create\)/)

  t.same(bare((await client.request('tasks/update', { taskId, inputResponses: { [k1 as string]: { action: 'accept', content: { name: 'Ada' } } } })).result), { resultType: 'complete' })
  const partial = (await client.request('tasks/get', { taskId })).result
  t.equal(partial.status, 'input_required', 'still waiting for the other answer')
  t.same(Object.keys(partial.inputRequests), [k2 as string], 'only the unanswered key remains')
  await client.request('tasks/update', { taskId, inputResponses: { [k1 as string]: { action: 'accept', content: { name: 'again' } }, [k2 as string]: { action: 'accept', content: { name: 'Grace' } } } })
  const done = (await pollUntil(client, taskId, terminal)).result
  t.equal(done.status, 'completed')
  t.equal(done.result.content[0].text, 'Ada & Grace', 'an already answered key is not answered twice')
})

t.test('inside a task: missing client capability, progress as statusMessage, logs dropped, no stream', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  const step = deferred()
  const seen: Record<string, unknown> = {}
  core.tool({ name: 'probe', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    seen.elicit = await ctx.elicit({ message: 'x' }).catch((error) => error)
    seen.sample = await ctx.sample({ messages: [] }).catch((error) => error)
    seen.roots = await ctx.listRoots().catch((error) => error)
    seen.closeStream = ctx.closeStream()
    seen.taskId = (ctx as unknown as { taskId: string }).taskId
    ctx.log('info', 'not sent anywhere')
    ctx.progress(1, 4)
    ctx.progress(0, 4)
    await step.promise
    ctx.progress(2, 4, 'halfway')
    return { content: [{ type: 'text', text: 'ok' }] }
  })
  const client = modern({ capabilities: TASKS })
  const { taskId } = (await client.request('tools/call', { name: 'probe', arguments: {} })).result
  const first = (await pollUntil(client, taskId, (task) => task.statusMessage === '1/4')).result
  t.equal(first.status, 'working', 'a stale progress value (0 after 1) changes nothing')
  t.match(seen.elicit, { code: -32021, data: { requiredCapabilities: { elicitation: {} } } })
  t.match(seen.sample, { code: -32021, data: { requiredCapabilities: { sampling: {} } } })
  t.match(seen.roots, { code: -32021, data: { requiredCapabilities: { roots: {} } } })
  t.equal(seen.closeStream, false)
  t.equal(seen.taskId, taskId)
  step.resolve()
  const done = (await pollUntil(client, taskId, terminal)).result
  t.equal(done.statusMessage, 'halfway')
})

t.test('an input request gives up on its own signal or timeout, and the task goes back to working', async (t) => {
  const { core, modern } = memoryCore()
  t.teardown(() => core.tasks.close())
  const proceed = deferred()
  core.tool({ name: 'impatient', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    const timedOut = await ctx.elicit({ message: 'quick?' }, { timeoutMs: 5 }).catch((error) => error.name)
    const controller = new AbortController()
    const waiting = ctx.elicit({ message: 'abort me' }, { signal: controller.signal }).catch((error) => error)
    await proceed.promise
    controller.abort(new Error('changed my mind'))
    const aborted = await waiting
    const already = await ctx.elicit({ message: 'pre-aborted' }, { signal: controller.signal }).catch((error) => error.message)
    return { content: [{ type: 'text', text: `${timedOut} / ${(aborted as Error).message} / ${already}` }] }
  })
  const client = modern({ capabilities: { ...TASKS, elicitation: {} } })
  const { taskId } = (await client.request('tools/call', { name: 'impatient', arguments: {} })).result
  const asking = (await pollUntil(client, taskId, (task) => Object.values(task.inputRequests ?? {}).some((r: any) => r.params.message === 'abort me'))).result
  t.same(Object.values(asking.inputRequests).map((r: any) => r.params.message), ['abort me'], 'the timed-out request was withdrawn')
  proceed.resolve()
  const done = (await pollUntil(client, taskId, terminal)).result
  t.equal(done.result.content[0].text, 'TimeoutError / changed my mind / changed my mind')
})

t.test('the store bound refuses a new task with a clear error; the server keeps serving', async (t) => {
  const { core, modern } = memoryCore({ tasks: { maxTasksPerPrincipal: 1, maxTasks: 2 } })
  t.teardown(() => core.tasks.close())
  core.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  const a = modern({ capabilities: TASKS, principal: alice })
  t.equal((await a.request('tools/call', { name: 'job', arguments: {} })).result.resultType, 'task')
  const refused = await a.request('tools/call', { name: 'job', arguments: {} })
  t.same(refused.error, { code: -32603, message: 'Task limit reached: this client has 1 tasks already; retry once some have expired', data: { limit: 'tasks.maxTasksPerPrincipal', max: 1 } })
  const b = modern({ capabilities: TASKS, principal: bob })
  t.equal((await b.request('tools/call', { name: 'job', arguments: {} })).result.resultType, 'task', 'another principal still has room')
  const full = await modern({ capabilities: TASKS }).request('tools/call', { name: 'job', arguments: {} })
  t.match(full.error, { code: -32603, message: /the server holds 2 tasks already/ })
  t.equal((await a.request('tools/call', { name: 'job', arguments: {} })).error.code, -32603)
  t.equal((await modern({ capabilities: {} }).request('tools/call', { name: 'job', arguments: {} })).result.content[0].text, 'ok', 'sync calls are not affected')
})

t.test('after the TTL a task is gone, and one still running is stopped', async (t) => {
  // The store's clock runs ahead on demand, so "within the TTL" holds however slow the machine is.
  let skew = 0
  const store = new MemoryTaskStore({ now: () => Date.now() + skew })
  const { core, modern } = memoryCore({ tasks: { ttlMs: 60_000 }, taskStore: store })
  t.teardown(async () => { await core.tasks.close(); store.close() })
  core.tool({ name: 'quick', execution: { taskSupport: 'optional' } }, async () => ({ content: [{ type: 'text', text: 'ok' }] }))
  const client = modern({ capabilities: TASKS })
  const quick = (await client.request('tools/call', { name: 'quick', arguments: {} })).result
  t.equal(quick.ttlMs, 60_000)
  t.equal((await pollUntil(client, quick.taskId, terminal)).result.status, 'completed', 'readable within its TTL')
  skew = 60_000
  t.same((await client.request('tasks/get', { taskId: quick.taskId })).error, { code: -32602, message: 'Failed to retrieve task: Task not found' })
  t.equal(store.size, 0, 'and dropped from memory')

  const short = memoryCore({ tasks: { ttlMs: 30 } })
  t.teardown(() => short.core.tasks.close())
  let reason: unknown
  short.core.tool({ name: 'stuck', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    reason = ctx.signal.reason
    return { content: [] }
  })
  const shortClient = short.modern({ capabilities: TASKS })
  const stuck = (await shortClient.request('tools/call', { name: 'stuck', arguments: {} })).result
  t.equal((await pollUntil(shortClient, stuck.taskId, () => false)).error.code, -32602, 'a running task expires too')
  await until(() => reason !== undefined, { everyMs: 2, what: "the handler's signal to abort" })
  t.match(reason, { message: 'The task expired' }, "its handler's signal aborted")
  t.equal(short.core.tasks.runningCount, 0)
})

t.test('stopping fails the running tasks, aborts their handlers and closes the built-in store', async (t) => {
  const store = new MemoryTaskStore()
  const { core, modern } = memoryCore({ taskStore: store })
  let aborted = false
  core.tool({ name: 'stuck', execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve))
    aborted = true
    return { content: [] }
  })
  const client = modern({ capabilities: { ...TASKS, elicitation: {} } })
  const { taskId } = (await client.request('tools/call', { name: 'stuck', arguments: {} })).result
  const updates: string[] = []
  core.tasks.onChange((task) => { updates.push(task.status) })
  await core.tasks.close()
  t.ok(aborted)
  t.same(updates, ['failed'], 'listeners hear the final status')
  const kept = await store.get(taskId, 'anonymous')
  t.equal(kept?.status, 'failed', 'a store the app passed in is not closed by the server')
  t.match(kept?.error, { code: -32603, message: 'The server stopped before the task finished' })
  await core.tasks.close()
  const refused = await client.request('tools/call', { name: 'stuck', arguments: {} })
  t.match(refused.error, { code: -32603, message: /stopping/ })
  store.close()
})

t.test('a custom store is used as given; its failures are logged, not thrown at the client', async (t) => {
  const inner = new MemoryTaskStore()
  let failUpdates = false
  const calls: string[] = []
  const store = {
    create: async (task: any, limits: any) => { calls.push('create'); inner.create(task, limits) },
    get: async (id: string, owner: string) => { calls.push('get'); return inner.get(id, owner) },
    update: async (id: string, patch: any, now: number) => {
      calls.push('update')
      if (failUpdates) throw new Error('redis down')
      return inner.update(id, patch, now)
    },
    close: async () => { calls.push('close') }
  }
  const { core, modern, logged } = memoryCore({ taskStore: store })
  const gate = deferred()
  core.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => { await gate.promise; return { content: [{ type: 'text', text: 'ok' }] } })
  const client = modern({ capabilities: TASKS })
  const { taskId } = (await client.request('tools/call', { name: 'job', arguments: {} })).result
  failUpdates = true
  gate.resolve()
  await until(() => core.tasks.runningCount === 0, { everyMs: 2, what: 'no task running' })
  await sleep(5)
  t.match(logged, [{ message: 'task store update failed', details: { taskId } }])
  t.equal((await client.request('tasks/get', { taskId })).result.status, 'working', 'what the store has is what clients see')
  await core.tasks.close()
  t.notOk(calls.includes('close'), "the app's store stays open")
  t.ok(calls.includes('create') && calls.includes('get'))

  const limited = memoryCore({ taskStore: { ...store, create: async () => { throw new TaskLimitError('custom bound') } } })
  limited.core.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  const refused = await limited.modern({ capabilities: TASKS }).request('tools/call', { name: 'job', arguments: {} })
  t.same(refused.error, { code: -32603, message: 'Task limit reached: custom bound' })
  const broken = memoryCore({ taskStore: { ...store, create: async () => { throw new Error('connection refused to 10.0.0.7') } } })
  broken.core.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  const failed = await broken.modern({ capabilities: TASKS }).request('tools/call', { name: 'job', arguments: {} })
  t.same(failed.error, { code: -32603, message: 'Internal error' }, 'a store failure does not leak its details')
  t.match(broken.logged, [{ message: 'request handler failed' }])
})

t.test('two servers sharing a store: either answers tasks/get; a cancel through the other wins', async (t) => {
  const store = new MemoryTaskStore()
  const a = memoryCore({ taskStore: store })
  const b = memoryCore({ taskStore: store })
  t.teardown(async () => { await a.core.tasks.close(); await b.core.tasks.close(); store.close() })
  const gate = deferred()
  a.core.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => { await gate.promise; return { content: [{ type: 'text', text: 'late' }] } })
  const onA = a.modern({ capabilities: TASKS, principal: alice })
  const onB = b.modern({ capabilities: TASKS, principal: alice })
  const { taskId } = (await onA.request('tools/call', { name: 'job', arguments: {} })).result
  t.equal((await onB.request('tasks/get', { taskId })).result.status, 'working', 'the other instance sees it')
  t.equal((await b.modern({ capabilities: TASKS, principal: bob }).request('tasks/get', { taskId })).error.code, -32602, 'and still keeps it from others')
  t.same(bare((await onB.request('tasks/cancel', { taskId })).result), { resultType: 'complete' })
  t.equal((await onA.request('tasks/get', { taskId })).result.status, 'cancelled')
  gate.resolve()
  await until(() => a.core.tasks.runningCount === 0, { everyMs: 2, what: 'no task running' })
  const final = (await onA.request('tasks/get', { taskId })).result
  t.equal(final.status, 'cancelled', 'the work finishing later does not overwrite the cancel')
  t.notOk('result' in final)
})
