// Operation middleware (`server.use`, `app.mcp.use`) through the official clients on every
// transport: order, short-circuit, param rewrite and error mapping over stdio (a real child
// process), legacy SSE, Streamable HTTP 2025 and 2026-07-28, and inside a task.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import mcp from '../../src/index.js'
import { connectSse, connectStdio, connectStreamable } from '../helpers/clients.js'
import { MAPPED_CODE, registerMiddlewareCatalog } from '../helpers/middleware.js'
import { headersFor, modern, MODERN } from '../helpers/modern.js'

interface AnyClient {
  callTool: (params: { name: string, arguments?: Record<string, unknown> }) => Promise<unknown>
}

const text = (result: unknown): string => (result as { content: Array<{ text: string }> }).content[0]?.text ?? ''

async function app (t: Test): Promise<{ app: FastifyInstance, url: string }> {
  const server = Fastify({ forceCloseConnections: true })
  t.teardown(() => server.close())
  await server.register(mcp, { name: 'middleware', version: '1.0.0' })
  registerMiddlewareCatalog(server.mcp)
  return { app: server, url: await server.listen({ port: 0, host: '127.0.0.1' }) }
}

async function exercise (t: Test, client: AnyClient, transport: string, legacy: boolean): Promise<void> {
  t.equal(text(await client.callTool({ name: 'order', arguments: {} })), 'handler>inner>outer', 'first added is outermost; results come back through each')
  t.equal(text(await client.callTool({ name: 'cached', arguments: {} })), 'from middleware', 'short-circuit: the handler did not run')
  t.equal(text(await client.callTool({ name: 'greet', arguments: { name: 'ada' } })), 'hello ADA', 'the handler got the rewritten params')
  await t.rejects(client.callTool({ name: 'failing', arguments: {} }), { code: MAPPED_CODE, message: /mapped: the backend is down/ }, 'a thrown McpError is the answer')
  const seen = JSON.parse(text(await client.callTool({ name: 'seen', arguments: {} }))) as { notifications: string[], ops: Array<Record<string, unknown>> }
  t.match(seen.ops.at(-1), { method: 'tools/call', name: 'seen', transport, notification: false })
  if (legacy) t.ok(seen.notifications.includes('notifications/initialized:true'), 'client notifications go through it, marked')
}

t.test('stdio, a real child process', async (t) => {
  const { client } = await connectStdio('stdio-middleware-server.ts')
  t.teardown(() => client.close())
  await exercise(t, client, 'stdio', true)
})

t.test('legacy SSE', async (t) => {
  const { url } = await app(t)
  const { client } = await connectSse(`${url}/sse`)
  t.teardown(() => client.close())
  await exercise(t, client, 'sse', true)
})

t.test('Streamable HTTP, 2025-11-25 session', async (t) => {
  const { url } = await app(t)
  const { client } = await connectStreamable(`${url}/mcp`)
  t.teardown(() => client.close())
  await exercise(t, client, 'streamable', true)
})

t.test('Streamable HTTP, 2026-07-28', async (t) => {
  const { url } = await app(t)
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: MODERN } } })
  await client.connect(new ModernTransport(new URL(`${url}/mcp`)))
  t.teardown(() => client.close())
  await exercise(t, client, 'streamable', false)
})

t.test('inside a task: the rewrite reaches the task\'s handler; tasks/get goes through the chain too', async (t) => {
  const { app: server } = await app(t)
  const tasks = { extensions: { 'io.modelcontextprotocol/tasks': {} } }
  const post = async (body: Record<string, unknown>, extra: Record<string, string> = {}): Promise<any> => {
    const res = await server.inject({ method: 'POST', url: '/mcp', headers: headersFor(body, extra), payload: body })
    return res.json()
  }
  const started = await post(modern(1, 'tools/call', { name: 'greet_task', arguments: { name: 'grace' } }, { 'io.modelcontextprotocol/clientCapabilities': tasks }))
  t.equal(started.result.resultType, 'task')
  const taskId = started.result.taskId as string
  let task: any
  const deadline = Date.now() + 10_000
  do {
    task = await post(modern(2, 'tasks/get', { taskId }, { 'io.modelcontextprotocol/clientCapabilities': tasks }), { 'mcp-name': taskId })
    if (task.result?.status === 'completed') break
    await new Promise((resolve) => setTimeout(resolve, 20))
  } while (Date.now() < deadline)
  t.equal(task.result?.status, 'completed')
  t.equal(task.result.result.content[0].text, 'hello GRACE', 'the task ran the rewritten call')
  const seen = await post(modern(3, 'tools/call', { name: 'seen', arguments: {} }))
  const ops = JSON.parse(seen.result.content[0].text).ops as Array<{ method: string }>
  t.ok(ops.some((op) => op.method === 'tasks/get'), 'tasks/get went through the chain')
})
