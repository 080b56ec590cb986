// Must-show 1 of issue 21: the API's routes listed as tools, exactly: which routes (params and
// query, body and response schemas, PUT, DELETE, $refs to shared schemas, a prefixed child plugin,
// an excluded route, a route behind its own JWT check), their names, schemas and annotations,
// compared field by field, as a 2025 client and a 2026-07-28 client see them.
import t, { type Test } from 'tap'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { connectStreamable } from '../helpers/clients.js'
import { ADMIN, routesApp } from '../helpers/routes-app.js'

const address = {
  type: 'object',
  properties: { city: { type: 'string' }, zip: { type: 'string', pattern: '^[0-9]{5}$' } },
  required: ['city']
}
const user = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, address },
  required: ['id', 'name']
}
const noArguments = { type: 'object', properties: {}, additionalProperties: false }
const readOnly = { readOnlyHint: true }

/**
 * What tools/list must say, in declaration order. Not there: `GET /internal/metrics` (its
 * `config.mcp: true` loses to `exclude`), `GET /users/:id/avatar` (`config.mcp: false`), the HEAD
 * routes Fastify adds, and the MCP routes themselves.
 */
const EXPECTED: Array<Record<string, unknown>> = [
  {
    name: 'getUser',
    title: 'Get a user',
    description: 'One user by id, optionally with the address',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'integer', description: 'The user id' }, withAddress: { type: 'boolean', default: false } },
      required: ['id']
    },
    outputSchema: user,
    annotations: readOnly
  },
  {
    name: 'post_users',
    description: 'Create a user',
    // The body is the shared `newUser`, its `address` the shared `address`: both inlined.
    inputSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 }, address }, required: ['name'], additionalProperties: false },
    outputSchema: user
  },
  {
    name: 'put_users_id',
    description: 'PUT /users/:id',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' }, name: { type: 'string' } }, required: ['id', 'name'] },
    annotations: { idempotentHint: true }
  },
  {
    name: 'delete_users_id',
    description: 'DELETE /users/:id',
    inputSchema: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'], additionalProperties: false },
    annotations: { destructiveHint: true, idempotentHint: true }
  },
  {
    // `version` is in the query string and in the body: the arguments are grouped.
    name: 'patch_users_id_notes',
    description: 'PATCH /users/:id/notes',
    inputSchema: {
      type: 'object',
      properties: {
        params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        query: { type: 'object', properties: { version: { type: 'integer' } }, required: ['version'] },
        body: { type: 'object', properties: { version: { type: 'string' }, text: { type: 'string' } }, required: ['text'] }
      },
      required: ['params', 'query', 'body'],
      additionalProperties: false
    }
  },
  {
    name: 'get_v2_stats',
    title: 'User statistics',
    description: 'User statistics',
    inputSchema: noArguments,
    outputSchema: { type: 'object', properties: { users: { type: 'integer' } } },
    annotations: readOnly
  },
  {
    name: 'announce',
    description: 'POST /admin/announcements',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: { openWorldHint: true }
  },
  {
    // `x-tenant` is forwarded from the caller (forwardHeaders): no argument.
    name: 'get_echo_headers',
    description: 'GET /echo/headers',
    inputSchema: { type: 'object', properties: { 'x-trace': { type: 'string' } }, additionalProperties: false },
    annotations: readOnly
  },
  {
    name: 'post_transfers',
    description: 'POST /transfers',
    inputSchema: {
      type: 'object',
      properties: { from: { type: 'string' }, to: { type: 'string' }, amount: { type: 'number', minimum: 1 } },
      required: ['from', 'to', 'amount']
    }
  },
  { name: 'get_boom', description: 'GET /boom', inputSchema: noArguments, annotations: readOnly },
  { name: 'get_readme', description: 'GET /readme', inputSchema: noArguments, annotations: readOnly },
  { name: 'get_logo', description: 'GET /logo', inputSchema: noArguments, annotations: readOnly },
  { name: 'get_export', description: 'GET /export', inputSchema: noArguments, annotations: readOnly },
  {
    name: 'get_files',
    description: 'GET /files/*',
    inputSchema: { type: 'object', properties: { wildcard: { type: 'string', description: 'The rest of the path' } }, required: ['wildcard'], additionalProperties: false },
    annotations: readOnly
  }
]

function compare (t: Test, listed: Array<Record<string, unknown>>): void {
  t.strictSame(listed.map((tool) => tool.name), EXPECTED.map((tool) => tool.name), 'exactly these tools, in declaration order')
  for (const expected of EXPECTED) {
    const tool = listed.find((candidate) => candidate.name === expected.name) ?? {}
    t.strictSame(Object.keys(tool).sort(), Object.keys(expected).sort(), `${String(expected.name)}: exactly these fields`)
    for (const [field, value] of Object.entries(expected)) t.strictSame(tool[field], value, `${String(expected.name)}.${field}`)
  }
}

t.test('tools/list: the selected routes, their schemas and annotations, on both generations', async (t) => {
  const { app } = await routesApp(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const headers = { authorization: `Bearer ${ADMIN}` }

  const { client } = await connectStreamable(`${base}/mcp`, { headers })
  t.teardown(() => client.close())
  compare(t, (await client.listTools()).tools as Array<Record<string, unknown>>)

  const modern = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await modern.connect(new ModernTransport(new URL(`${base}/mcp`), { requestInit: { headers } }))
  t.teardown(() => modern.close())
  compare(t, (await modern.listTools()).tools as Array<Record<string, unknown>>)
})
