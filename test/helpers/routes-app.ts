// A small REST API with its routes as MCP tools, for the routes tests: every kind of route the
// feature must handle (params and query, body and response schemas, PUT, DELETE, shared schemas
// behind $refs, a prefixed child plugin, an excluded route, a route guarded by its own JWT check),
// with the MCP plugin's JWT auth using the same secret, so one token opens both doors.
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifySchema } from 'fastify'
import { createVerifier } from 'fast-jwt'
import type { Test } from 'tap'
import mcp, { type MCPPluginOptions } from '../../src/index.js'
import { signHmac } from './auth-keys.js'

export const SECRET = 'routes-tests-secret-of-at-least-32-bytes!'
export const tokenFor = (sub: string, role: string): string => signHmac(SECRET, { sub, role, exp: Math.floor(Date.now() / 1000) + 600 })
export const ADMIN = tokenFor('alice', 'admin')
export const READER = tokenFor('bob', 'reader')

/**
 * A route schema with the OpenAPI fields routes-as-tools reads (`operationId`, `summary`,
 * `description`, `tags`): @fastify/swagger types them; this app does without it.
 */
export const doc = (schema: Record<string, unknown>): FastifySchema => schema as FastifySchema

const verify = createVerifier({ key: SECRET, algorithms: ['HS256'] })

/** The route's own guard, as an API would have it: knows nothing of MCP. */
async function adminsOnly (request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const header = request.headers.authorization ?? ''
  let claims: Record<string, unknown>
  try {
    claims = verify(header.replace(/^Bearer /, '')) as Record<string, unknown>
  } catch {
    return await reply.code(401).send({ statusCode: 401, error: 'Unauthorized', message: 'a valid token is required' })
  }
  if (claims.role !== 'admin') await reply.code(403).send({ statusCode: 403, error: 'Forbidden', message: `${String(claims.sub)} may not post announcements` })
}

export interface RoutesApp {
  app: FastifyInstance
  /** Calls that reached each route handler, by `METHOD url`. */
  calls: Map<string, number>
}

/** The API with the MCP plugin (JWT auth) registered first, as the docs say; `more` adds routes. */
export async function routesApp (t: Test, options: Partial<MCPPluginOptions> = {}, more?: (app: FastifyInstance) => void): Promise<RoutesApp> {
  const app = Fastify({ forceCloseConnections: true })
  t.teardown(() => app.close())
  const calls = new Map<string, number>()
  app.addHook('onRequest', async (request) => {
    const key = `${request.method} ${request.routeOptions.url ?? ''}`
    calls.set(key, (calls.get(key) ?? 0) + 1)
  })
  await app.register(mcp, {
    name: 'users-api',
    version: '1.0.0',
    auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } },
    routes: {
      include: [{ url: '/users/**' }, { url: '/v2/**' }, { tag: 'tools' }, { url: '/internal/**' }],
      exclude: [{ url: '/internal/**' }],
      forwardHeaders: ['x-tenant']
    },
    ...options
  })

  app.addSchema({ $id: 'address', type: 'object', properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } }, required: ['city'] })
  app.addSchema({
    $id: 'user',
    type: 'object',
    properties: { id: { type: 'integer' }, name: { type: 'string' }, address: { $ref: 'address#' } },
    required: ['id', 'name']
  })
  app.addSchema({ $id: 'newUser', type: 'object', properties: { name: { type: 'string', minLength: 1 }, address: { $ref: 'address#' } }, required: ['name'], additionalProperties: false })

  const users = new Map<number, { id: number, name: string, address?: { city: string, zip?: string } }>([[1, { id: 1, name: 'Ada', address: { city: 'London' } }]])
  let nextId = 2

  app.get('/users/:id', {
    schema: doc({
      operationId: 'getUser',
      summary: 'Get a user',
      description: 'One user by id, optionally with the address',
      params: { type: 'object', properties: { id: { type: 'integer', description: 'The user id' } }, required: ['id'] },
      querystring: { type: 'object', properties: { withAddress: { type: 'boolean', default: false } } },
      response: { 200: { $ref: 'user#' } }
    })
  }, async (request, reply) => {
    const { id } = request.params as { id: number }
    const user = users.get(id)
    if (user === undefined) return await reply.code(404).send({ statusCode: 404, error: 'Not Found', message: `no user ${id}` })
    const { withAddress } = request.query as { withAddress: boolean }
    return withAddress ? user : { id: user.id, name: user.name }
  })

  app.post('/users', {
    schema: doc({
      description: 'Create a user',
      body: { $ref: 'newUser#' },
      response: { 201: { $ref: 'user#' } }
    })
  }, async (request, reply) => {
    const body = request.body as { name: string, address?: { city: string } }
    const user = { id: nextId++, ...body }
    users.set(user.id, user)
    return await reply.code(201).send(user)
  })

  app.put('/users/:id', {
    schema: {
      params: { type: 'object', properties: { id: { type: 'integer' } } },
      body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
    }
  }, async (request) => {
    const { id } = request.params as { id: number }
    const user = { id, name: (request.body as { name: string }).name }
    users.set(id, user)
    return user
  })

  app.delete('/users/:id', {
    schema: { params: { type: 'object', properties: { id: { type: 'integer' } } }, response: { 204: { type: 'null' } } }
  }, async (request, reply) => {
    users.delete((request.params as { id: number }).id)
    return await reply.code(204).send()
  })

  // Same names in the query string and the body: the tool groups its arguments.
  app.patch('/users/:id/notes', {
    schema: {
      querystring: { type: 'object', properties: { version: { type: 'integer' } }, required: ['version'] },
      body: { type: 'object', properties: { version: { type: 'string' }, text: { type: 'string' } }, required: ['text'] }
    }
  }, async (request) => ({ params: request.params, query: request.query, body: request.body }))

  app.get('/users/:id/avatar', { config: { mcp: false } }, async (_request, reply) => await reply.type('image/png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47])))

  await app.register(async (v2) => {
    v2.get('/stats', { schema: doc({ summary: 'User statistics', response: { 200: { type: 'object', properties: { users: { type: 'integer' } } } } }) }, async () => ({ users: users.size }))
  }, { prefix: '/v2' })

  app.get('/internal/metrics', { config: { mcp: true } }, async () => 'secret metrics')

  app.post('/admin/announcements', {
    onRequest: adminsOnly,
    config: { mcp: { name: 'announce', annotations: { openWorldHint: true } } },
    schema: { body: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }
  }, async (request) => ({ posted: (request.body as { text: string }).text }))

  app.get('/echo/headers', { schema: doc({ tags: ['tools'], headers: { type: 'object', properties: { 'x-trace': { type: 'string' }, 'x-tenant': { type: 'string' } } } }) },
    async (request) => request.headers)

  app.post('/transfers', {
    schema: doc({ tags: ['tools'], body: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' }, amount: { type: 'number', minimum: 1 } }, required: ['from', 'to', 'amount'] } })
  }, async (request, reply) => {
    const { from, to } = request.body as { from: string, to: string }
    if (from === to) return await reply.code(400).send({ statusCode: 400, error: 'Bad Request', message: 'from and to must be different accounts' })
    return { ok: true }
  })

  app.get('/boom', { schema: doc({ tags: ['tools'] }) }, async () => {
    throw new Error('connect ECONNREFUSED 10.0.0.5:5432 (password=hunter2)')
  })

  app.get('/readme', { schema: doc({ tags: ['tools'] }) }, async (_request, reply) => await reply.type('text/markdown; charset=utf-8').send('# Users API\n'))
  app.get('/logo', { schema: doc({ tags: ['tools'] }) }, async (_request, reply) => await reply.type('image/png').send(Buffer.from([0x89, 0x50, 0x4e, 0x47])))
  app.get('/export', { schema: doc({ tags: ['tools'] }) }, async (_request, reply) => await reply.type('application/zip').send(Buffer.from('PK\u0003\u0004')))
  app.get('/files/*', { schema: doc({ tags: ['tools'] }) }, async (request) => ({ path: (request.params as Record<string, string>)['*'] }))

  more?.(app)
  await app.ready()
  return { app, calls }
}
