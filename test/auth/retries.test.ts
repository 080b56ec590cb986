// Tasks and multi-round-trip retries are checked like the first request, with the credential each
// request carries: a `tasks/get` or a retry with fewer scopes than the operation needs is refused
// (403 step-up), though the same identity made the first call.
import t from 'tap'
import Fastify from 'fastify'
import mcp, { Type } from '../../src/index.js'
import { jwtAuth, token } from '../helpers/authz.js'
import { headersFor, modern } from '../helpers/modern.js'

const writer = token('alice', 'files:read files:write')
const reader = token('alice', 'files:read')
const TASKS = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
const ELICIT = { elicitation: {} }

const app = Fastify()
t.teardown(() => app.close())
await app.register(mcp, { name: 'retries', version: '1.0.0', auth: jwtAuth })
const rule = { scopes: ['files:write'] }
let release = (): void => {}
const held = new Promise<void>((resolve) => { release = resolve })
app.mcp.tool({ name: 'export', inputSchema: Type.Object({}), execution: { taskSupport: 'optional' }, auth: rule }, async () => {
  await held
  return { content: [{ type: 'text', text: 'exported' }] }
})
let confirmed = 0
app.mcp.tool({ name: 'delete', inputSchema: Type.Object({}), auth: rule }, async (_args, ctx) => {
  await ctx.elicit({ message: 'Delete?', requestedSchema: { type: 'object', properties: {} } })
  confirmed++
  return { content: [{ type: 'text', text: 'deleted' }] }
})
await app.ready()

async function post (bearer: string, body: Record<string, unknown>, extra: Record<string, string> = {}): Promise<{ status: number, json: any, challenge: string | undefined }> {
  const res = await app.inject({ method: 'POST', url: '/mcp', headers: { ...headersFor(body, extra), authorization: `Bearer ${bearer}` }, payload: body })
  return { status: res.statusCode, json: res.json(), challenge: res.headers['www-authenticate'] as string | undefined }
}

t.test('tasks/get, tasks/update and tasks/cancel with fewer scopes than the task\'s tool needs: 403', async (t) => {
  const started = await post(writer, modern(1, 'tools/call', { name: 'export', arguments: {} }, { 'io.modelcontextprotocol/clientCapabilities': TASKS }))
  t.equal(started.json.result.resultType, 'task')
  const taskId = started.json.result.taskId as string
  for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
    const refused = await post(reader, modern(2, method, { taskId, inputResponses: {} }, { 'io.modelcontextprotocol/clientCapabilities': TASKS }), { 'mcp-name': taskId })
    t.equal(refused.status, 403, method)
    t.equal(refused.challenge, 'Bearer error="insufficient_scope", scope="files:write"')
    t.match(refused.json, { id: 2, error: { code: -32005 } })
  }
  const allowed = await post(writer, modern(3, 'tasks/get', { taskId }, { 'io.modelcontextprotocol/clientCapabilities': TASKS }), { 'mcp-name': taskId })
  t.equal(allowed.status, 200)
  t.equal(allowed.json.result.status, 'working', 'the task is untouched: the refused cancel did not cancel it')
  release()
})

t.test('a multi-round-trip retry carrying fewer scopes is refused; with the same scopes it completes', async (t) => {
  const first = await post(writer, modern(1, 'tools/call', { name: 'delete', arguments: {} }, { 'io.modelcontextprotocol/clientCapabilities': ELICIT }))
  t.equal(first.json.result.resultType, 'input_required')
  const [key] = Object.keys(first.json.result.inputRequests)
  const retry = (id: number): Record<string, unknown> => modern(id, 'tools/call', {
    name: 'delete', arguments: {}, requestState: first.json.result.requestState, inputResponses: { [key as string]: { action: 'accept', content: {} } }
  }, { 'io.modelcontextprotocol/clientCapabilities': ELICIT })
  const narrow = await post(reader, retry(2))
  t.equal(narrow.status, 403)
  t.equal(confirmed, 0, 'the handler did not get past its question')
  const wide = await post(writer, retry(3))
  t.match(wide.json, { id: 3, result: { content: [{ text: 'deleted' }] } })
  t.equal(confirmed, 1)
})
