// What a predicate hides stays hidden: a call, a read, a completion of a definition the caller may
// not use answers byte for byte as for a name that does not exist (the id aside), and lists leave it
// out. On 2026-07-28 a list a rule applies to is private; lists without rules keep their hints.
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import mcp, { Type } from '../../src/index.js'
import { jwtAuth, token } from '../helpers/authz.js'
import { headersFor, modern } from '../helpers/modern.js'

const acme = token('ann', 'files:read', { tenant: 'acme' })
const other = token('bob', 'files:read', { tenant: 'globex' })
const onlyAcme = { allow: (principal: { claims: Record<string, unknown> } | undefined) => principal?.claims.tenant === 'acme' }

async function server (t: Test, options: Record<string, unknown> = {}): Promise<FastifyInstance> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'visibility', version: '1.0.0', auth: jwtAuth, ...options })
  await app.ready()
  return app
}

/** A raw 2026-07-28 request; the answer's body as text, and parsed. */
async function ask (app: FastifyInstance, bearer: string, method: string, params: Record<string, unknown> = {}, id = 1): Promise<{ text: string, json: any, status: number }> {
  const body = modern(id, method, params)
  const res = await app.inject({ method: 'POST', url: '/mcp', headers: { ...headersFor(body), authorization: `Bearer ${bearer}` }, payload: body })
  return { text: res.body, json: res.json(), status: res.statusCode }
}

/** A 2025 session's answer to one request (JSON, not a stream). */
async function legacy (app: FastifyInstance, bearer: string): Promise<(method: string, params?: Record<string, unknown>, id?: number) => Promise<string>> {
  const headers = { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json' }
  const init = await app.inject({ method: 'POST', url: '/mcp', headers, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } } })
  const session = init.headers['mcp-session-id'] as string
  return async (method, params = {}, id = 1) => (await app.inject({
    method: 'POST', url: '/mcp', headers: { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }, payload: { jsonrpc: '2.0', id, method, params }
  })).body
}

const withoutId = (text: string): string => text.replace(/"id":\d+/, '"id":0')

t.test('a predicate-denied tool: its call answers as an unknown one, byte for byte; it is not listed', async (t) => {
  const app = await server(t)
  let ran = 0
  app.mcp.tool({ name: 'open', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'open' }] }))
  const secret = app.mcp.tool({ name: 'acme_report', inputSchema: Type.Object({}), auth: onlyAcme }, async () => {
    ran++
    return { content: [{ type: 'text', text: 'report' }] }
  })
  const call = { name: 'acme_report', arguments: {} }

  t.match((await ask(app, acme, 'tools/call', call)).json, { result: { content: [{ text: 'report' }] } }, 'acme may call it')
  t.same((await ask(app, acme, 'tools/list')).json.result.tools.map((tool: { name: string }) => tool.name), ['open', 'acme_report'])
  t.same((await ask(app, other, 'tools/list')).json.result.tools.map((tool: { name: string }) => tool.name), ['open'], 'globex does not see it')
  const hidden = await ask(app, other, 'tools/call', call, 11)
  const legacyHidden = await (await legacy(app, other))('tools/call', call, 12)

  secret.remove()
  const unknown = await ask(app, other, 'tools/call', call, 21)
  const legacyUnknown = await (await legacy(app, other))('tools/call', call, 22)
  t.equal(hidden.status, unknown.status)
  t.equal(withoutId(hidden.text), withoutId(unknown.text), '2026-07-28: the same bytes as a tool that does not exist')
  t.equal(withoutId(legacyHidden), withoutId(legacyUnknown), '2025 session: the same bytes as a tool that does not exist')
  t.equal(ran, 1, 'only acme\'s call ran the handler')
})

t.test('a predicate-denied prompt and template: absent from lists and completion, read and get as unknown', async (t) => {
  const app = await server(t)
  const complete = (): string[] => ['q1', 'q2']
  const prompt = app.mcp.prompt({ name: 'acme_prompt', arguments: [{ name: 'quarter', required: true, complete }], auth: onlyAcme }, async () => ({ messages: [] }))
  const template = app.mcp.resource({ uri: 'acme://{id}', name: 'acme', auth: onlyAcme, complete: { id: complete } }, async (uri) => ({ contents: [{ uri, text: 'data' }] }))
  const completePrompt = { ref: { type: 'ref/prompt', name: 'acme_prompt' }, argument: { name: 'quarter', value: 'q' } }
  const completeTemplate = { ref: { type: 'ref/resource', uri: 'acme://{id}' }, argument: { name: 'id', value: '' } }

  t.same((await ask(app, acme, 'completion/complete', completePrompt)).json.result.completion.values, ['q1', 'q2'])
  t.same((await ask(app, other, 'prompts/list')).json.result.prompts, [])
  t.same((await ask(app, other, 'resources/templates/list')).json.result.resourceTemplates, [])
  const hidden = await Promise.all([
    ask(app, other, 'completion/complete', completePrompt),
    ask(app, other, 'completion/complete', completeTemplate),
    ask(app, other, 'prompts/get', { name: 'acme_prompt', arguments: { quarter: 'q1' } }),
    ask(app, other, 'resources/read', { uri: 'acme://7' })
  ])
  prompt.remove()
  template.remove()
  const unknown = await Promise.all([
    ask(app, other, 'completion/complete', completePrompt),
    ask(app, other, 'completion/complete', completeTemplate),
    ask(app, other, 'prompts/get', { name: 'acme_prompt', arguments: { quarter: 'q1' } }),
    ask(app, other, 'resources/read', { uri: 'acme://7' })
  ])
  for (const [i, what] of ['prompt completion', 'template completion', 'prompts/get', 'resources/read'].entries()) {
    t.equal(withoutId(hidden[i]?.text ?? ''), withoutId(unknown[i]?.text ?? ''), `${what}: as if it did not exist`)
  }
})

t.test('2026-07-28 caching: a list a rule applies to is private; the others keep the configured hints', async (t) => {
  const app = await server(t, { cache: { ttlMs: 5000, scope: 'public' } })
  app.mcp.tool({ name: 'guarded', inputSchema: Type.Object({}), auth: { scopes: ['files:read'] } }, async () => ({ content: [] }))
  app.mcp.prompt({ name: 'open_prompt' }, async () => ({ messages: [] }))
  app.mcp.resource({ uri: 'docs://guarded', name: 'guarded', auth: onlyAcme }, async (uri) => ({ contents: [{ uri, text: 'x' }] }))
  app.mcp.resource({ uri: 'docs://open', name: 'open' }, async (uri) => ({ contents: [{ uri, text: 'x' }] }))

  for (const bearer of [acme, other]) {
    t.match((await ask(app, bearer, 'tools/list')).json.result, { ttlMs: 5000, cacheScope: 'private' }, 'tools/list: private for every caller')
    t.match((await ask(app, bearer, 'resources/list')).json.result, { ttlMs: 5000, cacheScope: 'private' })
  }
  t.match((await ask(app, acme, 'prompts/list')).json.result, { ttlMs: 5000, cacheScope: 'public' }, 'no rule: the configured hints')
  t.match((await ask(app, acme, 'server/discover')).json.result, { ttlMs: 5000, cacheScope: 'public' }, 'discover keeps its hints')
  t.match((await ask(app, acme, 'resources/read', { uri: 'docs://guarded' })).json.result, { cacheScope: 'private' }, 'a guarded read is private')
  t.match((await ask(app, acme, 'resources/read', { uri: 'docs://open' })).json.result, { cacheScope: 'public' }, 'an open read keeps its hints')
})

t.test('a server without rules answers lists with the configured hints, unchanged', async (t) => {
  const app = await server(t, { cache: { ttlMs: 1000, scope: 'public' } })
  app.mcp.tool({ name: 'plain', inputSchema: Type.Object({}) }, async () => ({ content: [] }))
  t.match((await ask(app, acme, 'tools/list')).json.result, { ttlMs: 1000, cacheScope: 'public' })
})
