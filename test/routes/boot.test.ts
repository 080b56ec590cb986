// Must-show 5 of issue 21, and the selection rules: which routes become tools, and the coded
// errors ready() rejects with when a route cannot become one (each naming the route).
import t, { type Test } from 'tap'
import { Writable } from 'node:stream'
import Fastify, { type FastifyInstance } from 'fastify'
import mcp, { type MCPPluginOptions } from '../../src/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { doc } from '../helpers/routes-app.js'

const ok = async (): Promise<{ ok: boolean }> => ({ ok: true })

/** An app with the plugin registered first, `declare` adding its routes after. */
async function appWith (t: Test, declare: (app: FastifyInstance) => void, options: Partial<MCPPluginOptions> = {}): Promise<FastifyInstance> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  await app.register(mcp, { name: 'api', version: '1.0.0', ...options })
  declare(app)
  return app
}

/** `ready()` as t.rejects takes it (Fastify's is a thenable, not a promise). */
const booting = (app: FastifyInstance) => async () => { await app.ready() }

async function toolNames (t: Test, app: FastifyInstance): Promise<string[]> {
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  return (await client.listTools()).tools.map((tool) => tool.name)
}

t.test('two routes mapping to one name: a coded error naming both', async (t) => {
  const same = await appWith(t, (app) => {
    app.get('/a', { config: { mcp: true }, schema: doc({ operationId: 'fetch' }) }, ok)
    app.get('/b', { config: { mcp: true }, schema: doc({ operationId: 'fetch' }) }, ok)
  })
  await t.rejects(booting(same), { code: 'FST_MCP_ROUTE_TOOL_NAME_CLASH', message: 'GET /a and GET /b both map to the tool name "fetch": give one a schema.operationId or a config.mcp.name' })

  const sanitized = await appWith(t, (app) => {
    app.get('/users/:id', { config: { mcp: true } }, ok)
    app.get('/users/id', { config: { mcp: true } }, ok)
  })
  await t.rejects(booting(sanitized), { code: 'FST_MCP_ROUTE_TOOL_NAME_CLASH', message: /^GET \/users\/:id and GET \/users\/id both map to the tool name "get_users_id"/ })

  const byHand = await appWith(t, (app) => {
    app.mcp.tool({ name: 'get_ping' }, async () => ({ content: [] }))
    app.get('/ping', { config: { mcp: true } }, ok)
  })
  await t.rejects(booting(byHand), { code: 'FST_MCP_ROUTE_TOOL_NAME_CLASH', message: /^a tool registered with app\.mcp\.tool\(\) and GET \/ping both map/ })
})

t.test('a schema that cannot become a tool schema: a coded error naming the route', async (t) => {
  // A validatorCompiler for a schema language of its own: its schemas are no JSON Schema.
  class Shape {
    readonly fields: Record<string, string>
    constructor (fields: Record<string, string>) { this.fields = fields }
  }
  const shapeCompiler = ({ schema }: { schema: unknown }) => (data: unknown) =>
    Object.keys((schema as Shape).fields).every((key) => typeof (data as Record<string, unknown>)?.[key] === 'string') ? { value: data } : { error: new Error('bad shape') }
  const foreign = await appWith(t, (app) => {
    app.post('/shapes', { config: { mcp: true }, schema: { body: new Shape({ name: 'string' }) }, validatorCompiler: shapeCompiler }, ok)
  })
  await t.rejects(booting(foreign), {
    code: 'FST_MCP_ROUTE_TOOL_SCHEMA',
    message: /^Route POST \/shapes cannot become a tool: schema\.body is not a JSON Schema object \(an instance of Shape, as a validatorCompiler of another schema language takes\)/
  })

  const cases: Array<[string, (app: FastifyInstance) => void, RegExp]> = [
    ['a function inside a schema', (app) => {
      app.post('/fn', { config: { mcp: true }, validatorCompiler: () => () => true, schema: { body: { type: 'object', properties: { x: { check: () => true } } } } }, ok)
    }, /^Route POST \/fn cannot become a tool: schema\.body holds a function/],
    ['a $ref to no shared schema', (app) => {
      app.get('/ref', { config: { mcp: true }, serializerCompiler: () => JSON.stringify, schema: { response: { 200: { $ref: 'missing#' } } } }, ok)
    }, /^Route GET \/ref cannot become a tool: schema\.response\.200: \$ref "missing#" names no schema added with app\.addSchema\(\)/],
    ['a body that takes no JSON', (app) => {
      app.post('/text', { config: { mcp: true }, schema: { body: { content: { 'text/plain': { schema: { type: 'string' } } } } } }, ok)
    }, /^Route POST \/text cannot become a tool: schema\.body takes no JSON \(content types: text\/plain\)/],
    ['an invalid JSON Schema', (app) => {
      app.post('/invalid', { config: { mcp: true }, validatorCompiler: () => () => true, schema: { body: { type: 'strng' } } }, ok)
    }, /^Route POST \/invalid cannot become a tool: .*schema is invalid/]
  ]
  for (const [what, declare, message] of cases) {
    const app = await appWith(t, declare)
    await t.rejects(booting(app), { code: 'FST_MCP_ROUTE_TOOL_SCHEMA', message }, what)
  }
})

t.test('an invalid config.mcp: a coded error naming the route', async (t) => {
  const cases: Array<[unknown, string]> = [
    ['yes', 'config.mcp must be true, false or an object; got "yes"'],
    [{ nmae: 'x' }, 'config.mcp has no option "nmae"; it takes name, title, description, annotations, hidden'],
    [{ name: 'two words' }, 'config.mcp.name must be 1-128 characters of A-Z, a-z, 0-9, "_", "-" or "."; got "two words"'],
    [{ description: 3 }, 'config.mcp.description must be a string; got number 3'],
    [{ hidden: 'no' }, 'config.mcp.hidden must be true or false; got "no"'],
    [{ annotations: [] }, 'config.mcp.annotations must be an object; got an array'],
    [{ annotations: { readOnly: true } }, 'config.mcp.annotations has no "readOnly"; it takes title, readOnlyHint, destructiveHint, idempotentHint, openWorldHint'],
    [{ annotations: { readOnlyHint: 'yes' } }, 'config.mcp.annotations.readOnlyHint must be a boolean; got "yes"']
  ]
  for (const [config, problem] of cases) {
    const app = await appWith(t, (app) => { app.get('/thing', { config: { mcp: config as never } }, ok) })
    await t.rejects(booting(app), { code: 'FST_MCP_ROUTE_TOOL_CONFIG', message: `Route GET /thing: ${problem}` }, JSON.stringify(config))
  }
})

t.test('an invalid routes option: the options error, with its path', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [{ include: 3 }, /routes\.include: expected a list of matchers \(\{ method, url, tag, operationId \}\) or a predicate function, got number/],
    [{ forwardHeaders: ['x tenant'] }, /routes\.forwardHeaders\[0\]: expected an HTTP header name/],
    [{ forwardHeaders: ['X-Tenant', 'Host', 'mcp-session-id'] }, /routes\.forwardHeaders\[1\]: "Host" is never forwarded .*\n {2}routes\.forwardHeaders\[2\]: "mcp-session-id" is never forwarded/],
    [{ inclde: [] }, /routes\.inclde: unknown option \(did you mean "include"\?\)/],
    [{ exclude: [{ url: '/ok' }, { glob: '/x' }, 'GET', { method: [] }] }, /routes\.exclude: item 1: "glob" is no matcher field; a matcher takes method, url, tag, operationId; item 2 must be a matcher such as \{ url: '\/api\/\*\*' \}; item 3: method must be a method name or a non-empty list of them/]
  ]
  for (const [routes, message] of cases) {
    const app = Fastify()
    t.teardown(() => app.close())
    await t.rejects(async () => { await app.register(mcp, { name: 'api', version: '1.0.0', routes: routes as never }) }, { code: 'FST_MCP_INVALID_OPTIONS', message }, JSON.stringify(routes))
  }
})

t.test('which routes become tools', async (t) => {
  const app = await appWith(t, (app) => {
    app.get('/pred/a', ok)
    app.route({ method: ['GET', 'POST', 'HEAD', 'OPTIONS'], url: '/multi', config: { mcp: true }, handler: ok })
    app.post('/m/one', ok)
    app.get('/m/one', ok)
    app.get('/tagged', { schema: doc({ tags: ['ai', 'public'] }) }, ok)
    app.get('/op', { schema: doc({ operationId: 'listThings' }) }, ok)
    app.get('/deep', ok)
    app.get('/deep/a/b', ok)
    app.get('/hidden', { config: { mcp: { hidden: true } } }, ok)
    app.get('/off', { config: { mcp: false }, schema: doc({ tags: ['ai'] }) }, ok)
    app.get('/named', { config: { mcp: { name: 'custom.name-1', title: 'Named', description: 'Says its name' } } }, ok)
  }, {
    routes: {
      include: [{ method: 'post', url: '/m/*' }, { tag: 'ai' }, { operationId: 'listThings' }, { url: '/deep/**' }, { url: '/hidden' }, { url: '/pred/*' }],
      exclude: (route) => route.url === '/pred/a'
    }
  })
  t.strictSame(await toolNames(t, app), [
    'get_multi', 'post_multi', 'post_m_one', 'get_tagged', 'listThings', 'get_deep', 'get_deep_a_b', 'custom.name-1'
  ], 'matchers, predicates, config.mcp; never HEAD, OPTIONS or the MCP routes')
})

t.test('the MCP routes are never tools, even when every route is included', async (t) => {
  const app = await appWith(t, (app) => { app.get('/mine', ok) }, { routes: { include: [{}] } })
  t.strictSame(await toolNames(t, app), ['get_mine'])
})

t.test('routes declared before the plugin are not seen, and the server says so', async (t) => {
  const lines: string[] = []
  const stream = new Writable({ write (chunk, _encoding, done) { lines.push(chunk.toString()); done() } })
  const app = Fastify({ logger: { level: 'warn', stream } })
  t.teardown(() => app.close())
  app.get('/early', ok)
  await app.register(mcp, { name: 'api', version: '1.0.0', routes: { include: [{ url: '/early' }] } })
  await app.ready()
  t.equal(app.mcp.sessionCount, 0)
  t.match(lines.join(''), /routes\.include matched no route: routes declared before `await app\.register\(mcp\)`/)
})
