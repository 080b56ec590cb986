// The authorization catalog: definitions under access rules, shared by the authorization tests
// (in-process and in the stdio fixture). Handler runs are counted, so a test can show that a
// refused call never reached its handler.
import { createHmac } from 'node:crypto'
import { Type, type MCPRegistryApi } from '../../src/index.js'

export const SECRET = 'authz-test-secret-0123456789abcdef-0123456789'

/** How often each handler ran, by definition name. */
export const runs = new Map<string, number>()
const ran = (name: string): void => { runs.set(name, (runs.get(name) ?? 0) + 1) }

/** What the list shows a caller holding `files:read` in tenant `acme`. */
export const READER_TOOLS = ['echo', 'read_file', 'tenant_tool']

/**
 * - `echo`: open to everyone;
 * - `read_file`: `files:read`; `write_file`: `files:read` and `files:write` (the 403 names both);
 * - `tenant_tool`, `tenant_prompt`, `tenant://{id}`: only principals whose `tenant` claim is `acme`
 *   (a predicate: hidden from everyone else, as if they did not exist).
 */
export function registerAuthzCatalog (server: MCPRegistryApi): void {
  server.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => {
    ran('echo')
    return { content: [{ type: 'text', text }] }
  })
  server.tool({ name: 'read_file', inputSchema: Type.Object({ path: Type.String() }), auth: { scopes: ['files:read'] } }, async ({ path }) => {
    ran('read_file')
    return { content: [{ type: 'text', text: `contents of ${path}` }] }
  })
  server.tool({ name: 'write_file', inputSchema: Type.Object({ path: Type.String() }), auth: { scopes: ['files:read', 'files:write'] } }, async ({ path }) => {
    ran('write_file')
    return { content: [{ type: 'text', text: `wrote ${path}` }] }
  })
  const acme = { allow: (principal: { claims: Record<string, unknown> } | undefined) => principal?.claims.tenant === 'acme' }
  server.tool({ name: 'tenant_tool', inputSchema: Type.Object({}), auth: acme }, async () => {
    ran('tenant_tool')
    return { content: [{ type: 'text', text: 'acme only' }] }
  })
  server.prompt({ name: 'tenant_prompt', arguments: [{ name: 'topic', required: true, complete: () => ['alpha', 'beta'] }], auth: acme }, async ({ topic }) => {
    ran('tenant_prompt')
    return { messages: [{ role: 'user', content: { type: 'text', text: topic } }] }
  })
  server.resource({ uri: 'tenant://{id}', name: 'tenant', auth: acme }, async (uri) => {
    ran('tenant://{id}')
    return { contents: [{ uri, text: 'acme data' }] }
  })
}

/** An HS256 JWT for `sub` with `scope` and claims, valid for an hour. */
export function token (sub: string, scope: string, claims: Record<string, unknown> = {}): string {
  const encode = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  const body = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode({ sub, scope, exp: Math.floor(Date.now() / 1000) + 3600, ...claims })}`
  return `${body}.${createHmac('sha256', SECRET).update(body).digest('base64url')}`
}

export const jwtAuth = { type: 'jwt' as const, options: { secret: SECRET, algorithms: ['HS256' as const] } }
