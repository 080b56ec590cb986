// Step-up authorization end to end (MCP "Scope Challenge Handling"): the official SDK clients, with
// an OAuth client-credentials provider against a real authorization server (oidc-provider on
// loopback), hold `files:read`; calling the write tool gets 403 insufficient_scope naming
// `files:read files:write` and the RFC 9728 metadata URL; the client re-authorizes with the wider
// scope and the same call succeeds: SDK v2 (2026-07-28 and 2025 sessions). SDK v1 acts on the challenge
// but cannot widen a client-credentials grant: its test shows the challenge it received.
import t from 'tap'
import Fastify from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport, ClientCredentialsProvider as ModernCredentials } from '@modelcontextprotocol/client'
import mcp from '../../src/index.js'
import { CLIENT_SECRET, SERVER_CLIENT_ID, SERVER_CLIENT_SECRET, startAuthorizationServer } from '../fixtures/auth-oidc.js'
import { freePort } from '../helpers/free-port.js'
import { registerAuthzCatalog, runs } from '../helpers/authz.js'

const port = await freePort()
const resource = `http://127.0.0.1:${port}/mcp`
const as = await startAuthorizationServer({ scopes: ['files:read', 'files:write'], resources: [resource] })
t.teardown(as.close)

// What the authorization server was asked for: the scope of every token request.
const requested: string[] = []
const countingFetch: typeof fetch = async (input, init) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
  if (url.startsWith(as.issuer) && url.endsWith('/token') && typeof init?.body === 'string') {
    requested.push(new URLSearchParams(init.body).get('scope') ?? '')
  } else if (url.startsWith(as.issuer) && url.endsWith('/token') && init?.body instanceof URLSearchParams) {
    requested.push(init.body.get('scope') ?? '')
  }
  return await fetch(input, init)
}

const app = Fastify({ forceCloseConnections: true })
t.teardown(() => app.close())
await app.register(mcp, {
  name: 'step-up',
  version: '1.0.0',
  auth: { type: 'oauth', options: { issuerUrl: as.issuer, clientId: SERVER_CLIENT_ID, clientSecret: SERVER_CLIENT_SECRET, resource } }
})
registerAuthzCatalog(app.mcp)
await app.listen({ port, host: '127.0.0.1' })

t.test('SDK v1, 2025 Streamable HTTP: it acts on the challenge, but its client-credentials grant asks for its configured scope again', async (t) => {
  // @modelcontextprotocol/sdk 1.32 re-authorizes on 403 insufficient_scope with the challenge's
  // scope, but its non-interactive token request (`fetchToken`) takes the provider's configured
  // scope, not that one: it gets the same narrow token and gives up. What it received is shown.
  requested.length = 0
  const authProvider = new ClientCredentialsProvider({ clientId: 'jwt-client', clientSecret: CLIENT_SECRET, scope: 'files:read', expectedIssuer: as.issuer })
  const client = new Client({ name: 'step-up', version: '1.0.0' })
  const challenges: string[] = []
  const watching: typeof fetch = async (input, init) => {
    const response = await countingFetch(input, init)
    if (response.status === 403) challenges.push(response.headers.get('www-authenticate') ?? '')
    return response
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(resource), { authProvider, fetch: watching }))
  t.teardown(() => client.close())
  const tools = (await client.listTools()).tools.map((tool) => tool.name)
  t.ok(tools.includes('read_file') && !tools.includes('write_file'), 'with files:read the write tool is not listed')

  const before = runs.get('write_file') ?? 0
  await t.rejects(client.callTool({ name: 'write_file', arguments: { path: '/notes' } }), { code: 403, message: /after trying upscoping/ })
  const metadata = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`
  t.same(challenges, Array(2).fill(`Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="${metadata}"`), 'the challenge it got, before and after re-authorizing')
  t.same(requested, ['files:read', 'files:read'], 'its second token request asked for its configured scope, not the challenge\'s')
  t.equal(runs.get('write_file') ?? 0, before, 'the handler never ran')
})

t.test('the challenge carries resource_metadata, and the metadata names the authorization server', async (t) => {
  const narrow = await as.token('jwt-client', { resource, scope: 'files:read' })
  const init = await fetch(resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
  })
  const session = init.headers.get('mcp-session-id') ?? ''
  await init.body?.cancel()
  const response = await fetch(resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${narrow}`, 'content-type': 'application/json', accept: 'application/json', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: { path: '/x' } } })
  })
  t.equal(response.status, 403)
  const metadata = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`
  t.equal(response.headers.get('www-authenticate'), `Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="${metadata}"`)
  await response.body?.cancel()
  const document = await (await fetch(metadata)).json() as Record<string, unknown>
  t.same(document.authorization_servers, [as.issuer])
})

t.test('SDK v2, 2026-07-28: the same step-up on a stateless request', async (t) => {
  const authProvider = new ModernCredentials({ clientId: 'jwt-client', clientSecret: CLIENT_SECRET, scope: 'files:read', expectedIssuer: as.issuer })
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
  await client.connect(new ModernTransport(new URL(resource), { authProvider }))
  t.teardown(() => client.close())
  const before = runs.get('write_file') ?? 0
  const result = await client.callTool({ name: 'write_file', arguments: { path: '/modern' } })
  t.match(result, { content: [{ text: 'wrote /modern' }] })
  t.equal(runs.get('write_file'), before + 1)
  t.match(authProvider.tokens()?.scope ?? '', /files:write/)
})

t.test('SDK v2 on a 2025-11-25 session: the same step-up, on the same session', async (t) => {
  const authProvider = new ModernCredentials({ clientId: 'jwt-client', clientSecret: CLIENT_SECRET, scope: 'files:read', expectedIssuer: as.issuer })
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: 'legacy' } })
  const transport = new ModernTransport(new URL(resource), { authProvider })
  await client.connect(transport)
  t.teardown(() => client.close())
  const session = transport.sessionId
  t.type(session, 'string', 'a 2025 session')
  const before = runs.get('write_file') ?? 0
  t.match(await client.callTool({ name: 'write_file', arguments: { path: '/legacy' } }), { content: [{ text: 'wrote /legacy' }] })
  t.equal(runs.get('write_file'), before + 1)
  t.equal(transport.sessionId, session, 'the session survived the step-up: it belongs to the identity, not to the token')
})
