// Task helpers (Tasks extension, 2026-07-28): a task-augmented call, polling to its end with the
// handlers answering what the task asks, cancelling, and listening for its status; a 2025
// session gets an McpError saying tasks are not there.
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcp, { ErrorCode, McpError, MCPServer, Type, type MCPRegistryApi } from '../../src/index.js'
import { createTestClient, type TestClient } from '../../src/testing/index.js'

function register (registry: MCPRegistryApi): void {
  registry.tool({ name: 'report', execution: { taskSupport: 'optional' }, inputSchema: Type.Object({ topic: Type.String() }) }, async ({ topic }, ctx) => {
    const answer = await ctx.elicit({ message: 'Which format?', requestedSchema: { type: 'object', properties: { format: { type: 'string' } } } })
    return { content: [{ type: 'text', text: `${topic} as ${String((answer.content as { format?: string } | undefined)?.format)}` }] }
  })
  registry.tool({ name: 'forever', execution: { taskSupport: 'required' }, inputSchema: Type.Object({}) }, async (_args, ctx) => {
    await new Promise<void>((resolve) => { ctx.signal.addEventListener('abort', () => { resolve() }, { once: true }) })
    return { content: [{ type: 'text', text: 'stopped' }] }
  })
  registry.tool({ name: 'broken', execution: { taskSupport: 'optional' }, inputSchema: Type.Object({}) }, async () => {
    throw new McpError(ErrorCode.InvalidParams, 'nothing to report')
  })
  registry.tool({ name: 'plain', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'right away' }] }))
}

async function taskTest (t: Test, client: TestClient): Promise<void> {
  const call = await client.callToolAsTask('report', { topic: 'sales' })
  t.ok(call.task !== undefined, 'a task handle')
  const taskId = call.task?.taskId ?? ''
  t.match(call.task, { taskId: String, status: 'working', ttlMs: Number, pollIntervalMs: Number })
  const listen = await client.listen({ taskIds: [taskId] })
  t.same(listen.acknowledged, { taskIds: [taskId] })
  t.same(await client.waitForTask(taskId), { content: [{ type: 'text', text: 'sales as pdf' }] }, 'input_required answered by onElicit through tasks/update')
  t.match((await client.getTask(taskId)), { taskId, status: 'completed', result: { content: [{ type: 'text', text: 'sales as pdf' }] } })
  // The listen opened after the call: what it hears starts wherever the task was by then.
  const statuses = listen.received.map((notification) => notification.params?.status)
  t.equal(statuses.at(-1), 'completed', `notifications/tasks heard: ${statuses.join(', ')}`)
  t.ok(listen.received.every((notification) => notification.method === 'notifications/tasks' && notification.params?.taskId === taskId))
  await listen.close()

  const forever = await client.callToolAsTask('forever')
  await client.cancelTask(forever.task?.taskId ?? '')
  await t.rejects(client.waitForTask(forever.task?.taskId ?? ''), { code: ErrorCode.InvalidRequest, message: /was cancelled/ })
  const broken = await client.callToolAsTask('broken')
  await t.rejects(client.waitForTask(broken.task?.taskId ?? ''), { code: ErrorCode.InvalidParams, message: 'nothing to report' })
  t.same(await client.callToolAsTask('plain'), { result: { content: [{ type: 'text', text: 'right away' }] } }, 'a tool without task support answers in the call')
  const slow = await client.callToolAsTask('forever')
  await t.rejects(client.waitForTask(slow.task?.taskId ?? '', { timeoutMs: 100 }), { code: ErrorCode.RequestTimeout })
  await client.cancelTask(slow.task?.taskId ?? '')
}

t.test('an MCPServer and a Fastify app, 2026-07-28', async (t) => {
  const server = new MCPServer({ name: 'tasks', version: '1.0.0', logLevel: 'silent', tasks: { pollIntervalMs: 20 } })
  register(server)
  const app = Fastify()
  await app.register(mcp, { name: 'tasks', version: '1.0.0', tasks: { pollIntervalMs: 20 } })
  register(app.mcp)
  t.teardown(async () => { await app.close() })
  for (const target of [server, app]) {
    const client = await createTestClient(target, { onElicit: async () => ({ action: 'accept', content: { format: 'pdf' } }) })
    await taskTest(t, client)
    await client.close()
  }
  await server.stop()
})

t.test('a 2025 session has no tasks', async (t) => {
  const server = new MCPServer({ name: 'tasks', version: '1.0.0', logLevel: 'silent' })
  register(server)
  const client = await createTestClient(server, { protocolVersion: '2025-11-25' })
  t.teardown(async () => { await client.close() })
  const attempts: Array<Promise<unknown>> = [client.callToolAsTask('report', { topic: 'x' }), client.getTask('x'), client.cancelTask('x')]
  for (const attempt of attempts) {
    const error = await attempt.then(() => undefined, (thrown: unknown) => thrown)
    t.type(error, McpError)
    t.match(error, { code: ErrorCode.MethodNotFound, message: /tasks \(io\.modelcontextprotocol\/tasks\) are served on protocol 2026-07-28 only/ })
  }
})
