// Task results are bounded in bytes, per client and overall (issue 19, item 10): 60 results of 3 MB
// once held ~195 MB for an hour. Raw 2026-07-28 requests from several loopback addresses (clients
// without auth, each counted by its address) against the built-in memory store; the Redis store
// keeps the same bounds (test/helpers/scale-contract.ts, run against a real redis-server).
import t, { type Test } from 'tap'
import { Type } from '../../src/index.js'
import { catalogApp } from '../helpers/serve.js'
import { raw } from '../helpers/streamable-raw.js'
import { headersFor, modern, sseMessages } from '../helpers/modern.js'
import { poll, sleep } from '../helpers/wait.js'

const TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }
const KB = 1000

async function serve (t: Test, tasks: Record<string, number>) {
  const app = await catalogApp(t, { tasks })
  // A result as large as the client asks: what a tool echoing its input, or reading a file, returns.
  app.mcp.tool({ name: 'echo', inputSchema: Type.Object({ bytes: Type.Integer() }), execution: { taskSupport: 'optional' } },
    async ({ bytes }) => ({ content: [{ type: 'text', text: 'x'.repeat(bytes) }] }))
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  let nextId = 1
  async function rpc (method: string, params: Record<string, unknown>, from: string): Promise<any> {
    const body = modern(nextId++, method, params, TASKS)
    const headers = headersFor(body)
    if (method.startsWith('tasks/')) headers['mcp-name'] = String(params.taskId)
    const reply = await raw(`${base}/mcp`, 'POST', headers, body, { localAddress: from })
    const text = await reply.text()
    return String(reply.headers['content-type']).startsWith('text/event-stream') ? sseMessages(text).pop() : JSON.parse(text)
  }
  /** Starts an echo task from `from` and polls it to its end (5 s at most). */
  async function echo (bytes: number, from: string): Promise<any> {
    const created = await rpc('tools/call', { name: 'echo', arguments: { bytes } }, from)
    if (created.error !== undefined) return created
    const read = async (): Promise<any> => (await rpc('tasks/get', { taskId: created.result.taskId }, from)).result
    return { result: await poll(read, (task) => task.status !== 'working', { what: 'the echo task to end' }) }
  }
  return { app, rpc, echo }
}

t.test('a client keeps tasks.maxBytesPerPrincipal of results; past it the task fails with the bound, others go on', async (t) => {
  const { echo } = await serve(t, { maxBytesPerPrincipal: 1_048_576, maxBytes: 2_097_152 })
  const first = await echo(600 * KB, '127.0.0.1')
  t.equal(first.result.status, 'completed')
  t.equal(first.result.result.content[0].text.length, 600 * KB, 'a large result within the bound is kept whole')

  const second = await echo(600 * KB, '127.0.0.1')
  t.equal(second.result.status, 'failed', 'a second one would take this client past its share')
  t.match(second.result.error, { code: -32603, message: /tasks\.maxBytesPerPrincipal/, data: { limit: 'tasks.maxBytesPerPrincipal', max: 1_048_576 } })
  t.notOk('result' in second.result, 'its result was never kept')

  t.equal((await echo(600 * KB, '127.0.0.2')).result.status, 'completed', 'another client has its own share')
  t.equal((await echo(600 * KB, '127.0.0.3')).result.status, 'completed')
  const fourth = await echo(600 * KB, '127.0.0.4')
  t.equal(fourth.result.status, 'failed', 'every client together is past tasks.maxBytes')
  t.match(fourth.result.error, { code: -32603, data: { limit: 'tasks.maxBytes', max: 2_097_152 } })
  t.equal((await echo(10, '127.0.0.4')).result.status, 'completed', 'a small result still fits')
})

t.test('a task call whose own request would take the client past its share is refused', async (t) => {
  const { rpc } = await serve(t, { maxBytesPerPrincipal: 65_536, maxBytes: 1_048_576 })
  // The request's bytes are held by the task's work while it runs: they count.
  const refused = await rpc('tools/call', { name: 'echo', arguments: { bytes: 1, pad: 'p'.repeat(70 * KB) } }, '127.0.0.1')
  t.match(refused.error, { code: -32603, message: /Task limit reached: this client's tasks would weigh more than 65536 bytes/, data: { limit: 'tasks.maxBytesPerPrincipal' } })
})

t.test('results leave the books at their TTL: the client has room again', async (t) => {
  const { echo } = await serve(t, { maxBytesPerPrincipal: 1_048_576, maxBytes: 2_097_152, ttlMs: 1500 })
  t.equal((await echo(900 * KB, '127.0.0.1')).result.status, 'completed')
  t.equal((await echo(900 * KB, '127.0.0.1')).result.status, 'failed')
  await sleep(1600)
  t.equal((await echo(900 * KB, '127.0.0.1')).result.status, 'completed', 'the first result expired and freed its bytes')
})
