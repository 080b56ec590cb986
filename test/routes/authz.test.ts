// Route tools are tools: a route's `config.mcp.auth` and `config.mcp.rateLimit` are enforced like a
// definition's, `defaultAuth` covers routes without a rule, and operation middleware wraps their
// calls; a caller the rule denies never reaches the route.
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { ADMIN, READER, routesApp } from '../helpers/routes-app.js'
import type { Principal } from '../../src/index.js'

const admins = { allow: (principal: Principal | undefined) => principal?.claims.role === 'admin' }

function reportsRoute (app: FastifyInstance): void {
  app.get('/reports', { config: { mcp: { name: 'reports', auth: admins } } }, async () => ({ total: 42 }))
  app.get('/ping', { config: { mcp: { name: 'ping', rateLimit: { max: 1, timeWindow: 60_000 } } } }, async () => ({ pong: true }))
}

async function connect (t: Test, base: string, token: string): Promise<Client> {
  const { client } = await connectStreamable(`${base}/mcp`, { headers: { authorization: `Bearer ${token}` } })
  t.teardown(() => client.close())
  return client
}

t.test('config.mcp.auth: the route is listed and callable for callers it allows only; denied calls never reach it', async (t) => {
  const seen: Array<string | undefined> = []
  const { app, calls } = await routesApp(t, {}, (app) => {
    reportsRoute(app)
    app.mcp.use(async (op, next) => {
      if (op.method === 'tools/call') seen.push(op.name)
      return await next()
    })
  })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const admin = await connect(t, base, ADMIN)
  const reader = await connect(t, base, READER)

  const names = async (client: Client): Promise<string[]> => (await client.listTools()).tools.map((tool) => tool.name)
  t.ok((await names(admin)).includes('reports'), 'an admin sees the route tool')
  t.notOk((await names(reader)).includes('reports'), 'a reader does not')
  t.notOk(JSON.stringify(await admin.listTools()).includes('allow'), 'the rule is never sent')

  t.match(await admin.callTool({ name: 'reports', arguments: {} }), { structuredContent: { total: 42 } })
  const denied = reader.callTool({ name: 'reports', arguments: {} })
  const unknown = reader.callTool({ name: 'no_such_tool', arguments: {} })
  const message = async (answer: Promise<unknown>): Promise<string> => await answer.then((result) => JSON.stringify(result), (error: Error) => error.message)
  t.equal((await message(denied)).replace('reports', 'X'), (await message(unknown)).replace('no_such_tool', 'X'), 'denied as an unknown tool is')
  t.equal(calls.get('GET /reports'), 1, 'the route ran for the admin only')
  // A predicate denial passes on as an unknown name does (only its answer could tell them apart).
  t.same(seen, ['reports', 'reports', 'no_such_tool'], 'the middleware wrapped every call, the denied one as the unknown one')
})

t.test('defaultAuth covers route tools without a rule', async (t) => {
  const { app, calls } = await routesApp(t, { defaultAuth: admins }, reportsRoute)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const reader = await connect(t, base, READER)
  t.same((await reader.listTools()).tools, [], 'every route tool is the admins\' under the default rule')
  await t.rejects(reader.callTool({ name: 'getUser', arguments: { id: 1 } }), { message: /getUser/ })
  t.equal(calls.get('GET /users/:id'), undefined, 'the route never ran')
  const admin = await connect(t, base, ADMIN)
  t.match(await admin.callTool({ name: 'getUser', arguments: { id: 1 } }), { structuredContent: { id: 1, name: 'Ada' } })
})

t.test('config.mcp.rateLimit: the second call in the window is 429; the route ran once', async (t) => {
  const { app, calls } = await routesApp(t, {}, reportsRoute)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const reader = await connect(t, base, READER)
  t.match(await reader.callTool({ name: 'ping', arguments: {} }), { structuredContent: { pong: true } })
  await t.rejects(reader.callTool({ name: 'ping', arguments: {} }), { code: 429 })
  t.equal(calls.get('GET /ping'), 1)
})
