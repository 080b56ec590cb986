// Auth end to end: MCPServer over SSE with the official SDK client (credentials on the stream
// and on every POST), sessions owned by the principal that opened them, RFC 9728 metadata served
// by the real listener, and a boot that fails when the authorization server cannot be found.
import t, { type Test } from 'tap'
import { MCPServer, type Principal } from '../../src/index.js'
import type { AuthOptions } from '../../src/schemas/auth.js'
import { connectSse } from '../helpers/clients.js'
import { bearer, registerWhoami, whoami } from '../helpers/auth-app.js'
import { nowSeconds, signHmac } from '../helpers/auth-keys.js'
import { MCP_RESOURCE, SERVER_CLIENT_ID, SERVER_CLIENT_SECRET, startAuthorizationServer } from '../fixtures/auth-oidc.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'

const SECRET = 'e2e-shared-secret-0123456789abcdef0123'
const KEYS = ['e2e-key-a-0123456789abcdef', 'e2e-key-b-0123456789abcdef']

/** A started MCPServer (not the plugin: its own listener) with the `whoami` tool; stopped at teardown. */
async function startServer (t: Test, auth: AuthOptions): Promise<string> {
  const server = new MCPServer({ name: 'auth-e2e', version: '1.0.0', logLevel: 'silent', transport: { type: 'sse', options: { port: 0, auth } } })
  registerWhoami(server)
  const info = await server.start()
  t.teardown(async () => await server.stop())
  if (info.transport !== 'sse') throw new Error('not sse')
  return info.url
}

/** What `whoami` answers a new SDK client over SSE presenting `headers`. */
async function whoamiWith (url: string, headers: Record<string, string>): Promise<Principal> {
  const { client } = await connectSse(`${url}/sse`, { headers })
  try {
    return await whoami(client)
  } finally {
    await client.close()
  }
}

const jwtFor = (sub: string): string => signHmac(SECRET, { sub, iss: 'https://idp.test', exp: nowSeconds() + 300, scope: 'tools' })

t.test('JWT: the SDK client sends the token on the stream and the POSTs; the tool sees the principal', async (t) => {
  const url = await startServer(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'], issuer: 'https://idp.test' } })
  const principal = await whoamiWith(url, bearer(jwtFor('alice')))
  t.equal(principal.method, 'jwt')
  t.match(principal, { kind: 'user', issuer: 'https://idp.test', subject: 'alice' })
  t.same(principal.scopes, ['tools'])
  await t.rejects(connectSse(`${url}/sse`), 'no token: the stream is refused')
  const res = await fetch(`${url}/sse`, { headers: { accept: 'text/event-stream' } })
  t.equal(res.status, 401)
  t.equal(res.headers.get('www-authenticate'), 'Bearer realm="mcp"')
  t.same(await res.json(), { error: 'invalid_token', error_description: 'Missing credential: send an Authorization: Bearer token' })
})

t.test('API key: principal with fingerprint, never the key', async (t) => {
  const url = await startServer(t, { type: 'apikey', options: { keys: KEYS } })
  const principal = await whoamiWith(url, { 'x-api-key': KEYS[1] ?? '' })
  t.equal(principal.method, 'apikey')
  t.equal(principal.keyIndex, 1)
  t.equal(principal.kind, 'key')
  t.match(principal.subject, /^apikey:[0-9a-f]{12}$/)
  t.notOk('issuer' in principal)
  t.notOk(JSON.stringify(principal).includes(KEYS[1] ?? '-'), 'the key is not in the principal')
  await t.rejects(connectSse(`${url}/sse`, { headers: { 'x-api-key': 'wrong-key-0123456789abcdef' } }))
})

t.test('a valid principal cannot post into another principal\'s session', async (t) => {
  const url = await startServer(t, { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } })
  const alice = bearer(jwtFor('alice'))
  const stream = await openRawStream(`${url}/sse`, alice)
  t.teardown(() => stream.destroy())
  t.equal(stream.response.statusCode, 200)
  const endpoint = endpointOf(await stream.next())
  const post = async (headers: Record<string, string>): Promise<Response> => await fetch(new URL(endpoint, url), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
  })
  const bob = await post(bearer(jwtFor('bob')))
  t.equal(bob.status, 403, 'another subject, valid token: forbidden')
  const bobBody = await bob.text()
  t.notOk(bobBody.includes('alice'), 'the owner is not revealed')
  t.equal((await post({})).status, 401, 'no token: auth answers first')
  t.equal((await post(bearer(jwtFor('alice')))).status, 202, 'the owner, with a fresh token of the same subject')
})

t.test('OAuth with a real authorization server: JWT and opaque tokens over SSE, metadata on the listener', async (t) => {
  const as = await startAuthorizationServer()
  t.teardown(as.close)
  const url = await startServer(t, {
    type: 'oauth',
    options: { issuerUrl: as.issuer, clientId: SERVER_CLIENT_ID, clientSecret: SERVER_CLIENT_SECRET, audience: MCP_RESOURCE, scopes: ['mcp:read'] }
  })
  for (const client of ['jwt-client', 'opaque-client'] as const) {
    const principal = await whoamiWith(url, bearer(await as.token(client)))
    t.equal(principal.method, 'oauth')
    t.match(principal, { issuer: as.issuer, subject: client }, client)
  }
  const refused = await fetch(`${url}/sse`, { headers: { accept: 'text/event-stream' } })
  t.equal(refused.status, 401)
  const challenge = refused.headers.get('www-authenticate') ?? ''
  const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1]
  t.equal(metadataUrl, `${url}/.well-known/oauth-protected-resource/sse`)
  const metadata = await fetch(metadataUrl ?? '')
  t.equal(metadata.status, 200, 'the metadata is served without credentials')
  t.same(await metadata.json(), {
    resource: `${url}/sse`, authorization_servers: [as.issuer], bearer_methods_supported: ['header'], scopes_supported: ['mcp:read']
  })
  const lacking = await fetch(`${url}/sse`, { headers: { accept: 'text/event-stream', ...bearer(await as.token('jwt-client', { scope: 'mcp:write' })) } })
  t.equal(lacking.status, 403)
  t.match(lacking.headers.get('www-authenticate'), /error="insufficient_scope"/)
})

t.test('start() rejects with FST_MCP_AUTH_DISCOVERY_FAILED when the issuer cannot be discovered', async (t) => {
  const server = new MCPServer({
    logLevel: 'silent',
    transport: {
      type: 'sse',
      options: { port: 0, auth: { type: 'oauth', options: { issuerUrl: 'http://127.0.0.1:9', clientId: 'c', clientSecret: 'do-not-show-me', audience: 'mcp', discoveryTimeoutMs: 1000 } } }
    }
  })
  const error = await server.start().then(() => undefined, (e: unknown) => e as Error & { code: string })
  t.equal(error?.code, 'FST_MCP_AUTH_DISCOVERY_FAILED')
  t.match(error?.message, 'http://127.0.0.1:9/')
  t.notOk(error?.message.includes('do-not-show-me'))
  await server.stop()
})
