// OAuth 2.1 resource server against a real authorization server (oidc-provider on loopback):
// discovery, JWT access tokens checked against the discovered key set, opaque tokens introspected
// (RFC 7662) and cached, scopes, RFC 9728 metadata and challenges.
import t from 'tap'
import type { OAuthAuthOptions } from '../../src/schemas/auth.js'
import { assertRefused, bearer, guardApp } from '../helpers/auth-app.js'
import { MCP_RESOURCE, OTHER_RESOURCE, SERVER_CLIENT_ID, SERVER_CLIENT_SECRET, startAuthorizationServer } from '../fixtures/auth-oidc.js'

const as = await startAuthorizationServer()
t.teardown(as.close)

const oauth = (options: Partial<OAuthAuthOptions> = {}): { type: 'oauth', options: OAuthAuthOptions } => ({
  type: 'oauth',
  options: { issuerUrl: as.issuer, clientId: SERVER_CLIENT_ID, clientSecret: SERVER_CLIENT_SECRET, audience: MCP_RESOURCE, ...options }
})

t.test('discovery: RFC 8414 metadata of the issuer, once at boot', async (t) => {
  const before = as.count('/.well-known/oauth-authorization-server')
  await guardApp(t, oauth())
  t.equal(as.count('/.well-known/oauth-authorization-server'), before + 1)
})

t.test('JWT access token: verified with the discovered keys; principal; cached', async (t) => {
  const { app } = await guardApp(t, oauth())
  const token = await as.token('jwt-client')
  t.equal(token.split('.').length, 3, 'a JWT access token')
  const jwksBefore = as.count('/jwks')
  const res = await app.inject({ url: '/sse', headers: bearer(token) })
  t.equal(res.statusCode, 200)
  const principal = res.json().principal
  t.equal(principal.method, 'oauth')
  t.match(principal, { issuer: as.issuer, subject: 'jwt-client' })
  t.same(principal.scopes, ['mcp:read', 'mcp:write'])
  t.equal(principal.claims.aud, MCP_RESOURCE)
  t.equal(principal.expiresAt, principal.claims.exp * 1000)
  t.equal(as.count('/jwks'), jwksBefore + 1, 'the key set was fetched')
  for (let i = 0; i < 5; i++) t.equal((await app.inject({ method: 'POST', url: '/messages', headers: bearer(token), payload: {} })).statusCode, 200)
  const other = await as.token('jwt-client', { scope: 'mcp:read' })
  t.equal((await app.inject({ url: '/sse', headers: bearer(other) })).statusCode, 200)
  t.equal(as.count('/jwks'), jwksBefore + 1, 'no further key set fetch')
})

t.test('opaque access token: introspected with the server\'s client credentials, then cached', async (t) => {
  const { app } = await guardApp(t, oauth())
  const token = await as.token('opaque-client', { scope: 'mcp:read' })
  t.equal(token.split('.').length, 1, 'an opaque token')
  const before = as.count('/token/introspection')
  const res = await app.inject({ url: '/sse', headers: bearer(token) })
  t.equal(res.statusCode, 200)
  const principal = res.json().principal
  t.equal(principal.method, 'oauth')
  t.match(principal, { issuer: as.issuer, subject: 'opaque-client' }, 'client_id stands in for sub, with the issuer')
  t.same(principal.scopes, ['mcp:read'])
  t.type(principal.expiresAt, 'number')
  t.equal(as.count('/token/introspection'), before + 1)
  for (let i = 0; i < 5; i++) await app.inject({ url: '/sse', headers: bearer(token) })
  t.equal(as.count('/token/introspection'), before + 1, 'served from the introspection cache')

  // Concurrent first uses of one token share one introspection call.
  const fresh = await as.token('opaque-client')
  const answers = await Promise.all(Array.from({ length: 10 }, async () => await app.inject({ url: '/sse', headers: bearer(fresh) })))
  t.ok(answers.every((r) => r.statusCode === 200))
  t.equal(as.count('/token/introspection'), before + 2)
})

t.test('revoked and unknown opaque tokens are inactive: 401, briefly cached', async (t) => {
  const { app } = await guardApp(t, oauth())
  const token = await as.token('opaque-client')
  await as.revoke('opaque-client', token)
  const before = as.count('/token/introspection')
  for (const presented of [token, token, 'made-up-opaque-token']) {
    const res = await app.inject({ url: '/sse', headers: bearer(presented) })
    assertRefused(t, res, { status: 401, error: 'invalid_token', description: /not active/, secrets: [presented, SERVER_CLIENT_SECRET] })
  }
  t.equal(as.count('/token/introspection'), before + 2, 'the second use of the revoked token was answered from cache')
})

t.test('audience: tokens issued for another resource are refused, JWT or opaque', async (t) => {
  const { app } = await guardApp(t, oauth())
  for (const client of ['jwt-client', 'opaque-client'] as const) {
    const token = await as.token(client, { resource: OTHER_RESOURCE })
    assertRefused(t, await app.inject({ url: '/sse', headers: bearer(token) }),
      { status: 401, error: 'invalid_token', description: /audience/, secrets: [token] })
  }
})

t.test('required scopes: 403 insufficient_scope naming them', async (t) => {
  const { app } = await guardApp(t, oauth({ scopes: ['mcp:write'] }))
  for (const client of ['jwt-client', 'opaque-client'] as const) {
    const ok = await as.token(client, { scope: 'mcp:read mcp:write' })
    t.equal((await app.inject({ url: '/sse', headers: bearer(ok) })).statusCode, 200)
    const token = await as.token(client, { scope: 'mcp:read' })
    const res = await app.inject({ url: '/sse', headers: bearer(token) })
    assertRefused(t, res, { status: 403, error: 'insufficient_scope', description: /mcp:write/, secrets: [token] })
    t.equal(res.headers['www-authenticate'],
      'Bearer error="insufficient_scope", error_description="The token lacks the required scope: mcp:write", ' +
      'resource_metadata="http://localhost:80/.well-known/oauth-protected-resource/sse", scope="mcp:write"')
    // Served from cache the second time: still 403.
    t.equal((await app.inject({ url: '/sse', headers: bearer(token) })).statusCode, 403)
  }
})

t.test('challenge and RFC 9728 metadata derived from the request', async (t) => {
  const { app } = await guardApp(t, oauth({ scopes: ['mcp:read'] }))
  const res = await app.inject({ url: '/sse' })
  assertRefused(t, res, { status: 401, error: 'invalid_token', secrets: [SERVER_CLIENT_SECRET] })
  t.equal(res.headers['www-authenticate'],
    'Bearer resource_metadata="http://localhost:80/.well-known/oauth-protected-resource/sse", scope="mcp:read"')
  const post = await app.inject({ method: 'POST', url: '/messages', headers: { host: 'mcp.local:8443' } })
  t.match(post.headers['www-authenticate'], /resource_metadata="http:\/\/mcp\.local:8443\/\.well-known\/oauth-protected-resource\/messages"/)
  const bad = await app.inject({ url: '/sse', headers: { host: 'evil"host' } })
  t.equal(bad.headers['www-authenticate'], 'Bearer scope="mcp:read"', 'an unfit Host header is not put in the challenge')

  const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource/sse' })
  t.equal(metadata.statusCode, 200, 'metadata is not behind auth')
  t.same(metadata.json(), {
    resource: 'http://localhost:80/sse',
    authorization_servers: [as.issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['mcp:read']
  })
  t.equal((await app.inject({ url: '/.well-known/oauth-protected-resource/messages' })).json().resource, 'http://localhost:80/messages')
  const root = await app.inject({ url: '/.well-known/oauth-protected-resource' })
  t.equal(root.json().resource, 'http://localhost:80')
  t.notOk(root.body.includes(SERVER_CLIENT_SECRET))
})

t.test('with `resource`: fixed metadata URL, served at its own path, and used as the audience', async (t) => {
  const { app } = await guardApp(t, oauth({ audience: undefined, resource: MCP_RESOURCE }))
  const res = await app.inject({ url: '/sse' })
  t.equal(res.headers['www-authenticate'], 'Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"')
  const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource/mcp' })
  t.equal(metadata.json().resource, MCP_RESOURCE)
  t.notOk('scopes_supported' in metadata.json(), 'no scopes required, none advertised')
  t.equal((await app.inject({ url: '/.well-known/oauth-protected-resource/sse' })).json().resource, MCP_RESOURCE)
  t.equal((await app.inject({ url: '/sse', headers: bearer(await as.token('jwt-client')) })).statusCode, 200)
  const other = await as.token('jwt-client', { resource: OTHER_RESOURCE })
  t.equal((await app.inject({ url: '/sse', headers: bearer(other) })).json().error_description, 'The token audience is not accepted')
})

t.test('wrong client credentials for introspection: 503, the caller\'s token is not blamed', async (t) => {
  const { app } = await guardApp(t, oauth({ clientSecret: 'not-the-secret-0123456789' }))
  const token = await as.token('opaque-client')
  const res = await app.inject({ url: '/sse', headers: bearer(token) })
  assertRefused(t, res, { status: 503, error: 'temporarily_unavailable', secrets: [token, 'not-the-secret-0123456789'] })
  t.equal(res.headers['retry-after'], '5')
  // JWT access tokens need no introspection and keep working.
  t.equal((await app.inject({ url: '/sse', headers: bearer(await as.token('jwt-client')) })).statusCode, 200)
})

t.test('bearer tokens are refused outside the Authorization header', async (t) => {
  const { app } = await guardApp(t, oauth())
  const token = await as.token('jwt-client')
  const res = await app.inject({ url: `/sse?access_token=${token}`, headers: bearer(token) })
  assertRefused(t, res, { status: 400, error: 'invalid_request', description: /query string/, secrets: [token] })
})

t.test('RFC 9728 metadata and challenges never advertise offline_access (MCP 2026-07-28), even when it is required', async (t) => {
  const { app } = await guardApp(t, oauth({ scopes: ['mcp:read', 'offline_access'] }))
  const res = await app.inject({ url: '/sse' })
  t.equal(res.statusCode, 401)
  t.match(res.headers['www-authenticate'], /scope="mcp:read"$/, 'the challenge names the other scopes only')
  const metadata = await app.inject({ url: '/.well-known/oauth-protected-resource/sse' })
  t.same(metadata.json().scopes_supported, ['mcp:read'])
  const only = await guardApp(t, oauth({ scopes: ['offline_access'] }))
  t.notOk('scopes_supported' in (await only.app.inject({ url: '/.well-known/oauth-protected-resource/sse' })).json(), 'nothing left to advertise')
})
