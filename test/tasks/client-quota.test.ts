// Without auth, each client (its address, as sessions are counted) has its own task quota, while
// access to a task stays what it was: its unguessable id (issue 19, item 7). Raw 2026-07-28
// requests from two loopback addresses, as two hosts without credentials.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { catalogApp } from '../helpers/serve.js'
import { raw } from '../helpers/streamable-raw.js'
import { headersFor, modern, sseMessages } from '../helpers/modern.js'

const TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

/** A server whose `job` tool runs as a task until released; `rpc` sends one request from `from`. */
async function serve (t: Test, options: Record<string, unknown>) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  const app: FastifyInstance = await catalogApp(t, options)
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => {
    await gate
    return { content: [{ type: 'text', text: 'done' }] }
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  t.teardown(() => { release() })
  let nextId = 1
  async function rpc (method: string, params: Record<string, unknown>, from = '127.0.0.1'): Promise<any> {
    const body = modern(nextId++, method, params, TASKS)
    const headers = headersFor(body)
    if (method.startsWith('tasks/')) headers['mcp-name'] = String(params.taskId)
    const reply = await raw(`${base}/mcp`, 'POST', headers, body, { localAddress: from })
    const text = await reply.text()
    return String(reply.headers['content-type']).startsWith('text/event-stream') ? sseMessages(text).pop() : JSON.parse(text)
  }
  return { app, rpc, release }
}

t.test('one address fills its own task quota; another address still starts tasks', async (t) => {
  const { rpc } = await serve(t, { tasks: { maxTasksPerPrincipal: 3 } })
  const mine: string[] = []
  for (let i = 0; i < 3; i++) {
    const created = await rpc('tools/call', { name: 'job', arguments: {} })
    t.equal(created.result.resultType, 'task')
    mine.push(created.result.taskId)
  }
  const refused = await rpc('tools/call', { name: 'job', arguments: {} })
  t.match(refused.error, { code: -32603, message: /this client has 3 tasks already/, data: { limit: 'tasks.maxTasksPerPrincipal', max: 3 } })

  const other = await rpc('tools/call', { name: 'job', arguments: {} }, '127.0.0.2')
  t.equal(other.result?.resultType, 'task', 'another host is not locked out of tasks by the first one')

  // Access is unchanged: without auth the task id is the only secret, from any address.
  const seen = await rpc('tasks/get', { taskId: mine[0] }, '127.0.0.3')
  t.equal(seen.result.taskId, mine[0], 'a task is found by its id, whoever asks')
  t.equal(seen.result.status, 'working')
})

t.test('the overall bound still holds for every address together', async (t) => {
  const { rpc } = await serve(t, { tasks: { maxTasksPerPrincipal: 2, maxTasks: 3 } })
  for (const from of ['127.0.0.1', '127.0.0.1', '127.0.0.2']) t.equal((await rpc('tools/call', { name: 'job', arguments: {} }, from)).result.resultType, 'task')
  const full = await rpc('tools/call', { name: 'job', arguments: {} }, '127.0.0.4')
  t.match(full.error, { code: -32603, message: /the server holds 3 tasks already/, data: { limit: 'tasks.maxTasks', max: 3 } })
})
