// A small Fastify app guarded by createAuthGuard, the way the transports mount it: the guard's
// onRequest as a route-level hook on the MCP routes only, its extra routes on the root.
import Fastify, { type FastifyInstance, type FastifyServerOptions, type LightMyRequestResponse } from 'fastify'
import type { Test } from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { Type, type MCPRegistryApi, type Principal } from '../../src/index.js'
import { createAuthGuard, type AuthGuard } from '../../src/auth/index.js'
import type { AuthOptions } from '../../src/schemas/auth.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'

export const ENDPOINTS = ['/sse', '/messages'] as const

export interface GuardApp {
  app: FastifyInstance
  guard: AuthGuard
}

export async function guardApp (t: Test, auth: AuthOptions, serverOptions: FastifyServerOptions = {}): Promise<GuardApp> {
  // Through the real resolver: defaults filled in, boot rules applied.
  const resolved = resolvePluginOptions({ auth }).auth
  const guard = await createAuthGuard(resolved, { endpoints: ENDPOINTS })
  if (guard === undefined) throw new Error('no guard')
  const app = Fastify(serverOptions)
  const routeOptions = { onRequest: guard.onRequest, logSerializers: guard.logSerializers }
  app.get('/sse', routeOptions, async (request) => ({ principal: request.mcpPrincipal }))
  app.post('/messages', routeOptions, async (request) => ({ principal: request.mcpPrincipal }))
  // A user's own route: no guard.
  app.get('/open', async (request) => ({ principal: request.mcpPrincipal ?? null }))
  await guard.registerRoutes(app, [])
  t.teardown(async () => {
    await app.close()
    await guard.close()
  })
  return { app, guard }
}

/** A `whoami` tool answering ctx.auth as JSON: the principal verified for the request carrying the call. */
export function registerWhoami (api: MCPRegistryApi): void {
  api.tool({ name: 'whoami', description: 'ctx.auth', inputSchema: Type.Object({}) },
    async (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(ctx.auth ?? null) }] }))
}

/** What {@link registerWhoami}'s tool answers `client`. */
export async function whoami (client: Client): Promise<Principal> {
  const result = await client.callTool({ name: 'whoami', arguments: {} })
  return JSON.parse((result.content as Array<{ text: string }>)[0]?.text ?? 'null') as Principal
}

export const bearer = (token: string): Record<string, string> => ({ authorization: `Bearer ${token}` })

/** The whole answer as text: status line, every header, the body. */
export function wholeAnswer (res: LightMyRequestResponse): string {
  return `${res.statusCode}\n${JSON.stringify(res.headers)}\n${res.body}`
}

/**
 * A refusal: the status, the RFC 6750 body, a challenge (except 503), and no trace of any of
 * `secrets` (the presented token or key, configured secrets) anywhere in the answer.
 */
export function assertRefused (t: Test, res: LightMyRequestResponse, expected: { status: number, error: string, description?: RegExp, secrets: readonly string[] }): void {
  t.equal(res.statusCode, expected.status, `status ${expected.status}`)
  const body = res.json<{ error: string, error_description: string }>()
  t.equal(body.error, expected.error, `error ${expected.error}`)
  t.type(body.error_description, 'string')
  t.same(Object.keys(body).sort(), ['error', 'error_description'], 'body has error and error_description only')
  if (expected.description !== undefined) t.match(body.error_description, expected.description)
  if (expected.status !== 503) t.type(res.headers['www-authenticate'], 'string', 'has a challenge')
  const answer = wholeAnswer(res)
  for (const secret of expected.secrets) {
    t.notOk(answer.includes(secret), 'the answer does not contain the secret')
  }
}
