// Session ownership compares structured identities (method, kind, issuer, subject), never a
// joined string: issue 10, defect 8. Before, the owner was `iss|sub`, so `iss "a|b", sub "c"` and
// `iss "a", sub "b|c"` were one owner, and a token whose client_id was `alice` (no sub) was user
// `alice`. Driven over real sockets on both HTTP transports.
import t, { type Test } from 'tap'
import { principalKey, samePrincipal, type Principal } from '../../src/index.js'
import { bearer, registerWhoami } from '../helpers/auth-app.js'
import { serve } from '../helpers/serve.js'
import { nowSeconds, signHmac } from '../helpers/auth-keys.js'
import { BOTH, openSessionWith, raw } from '../helpers/streamable-raw.js'
import { endpointOf, openRawStream } from '../helpers/sse-raw.js'

const SECRET = 'identity-shared-secret-0123456789abcdef'
const token = (claims: Record<string, unknown>): string => signHmac(SECRET, { exp: nowSeconds() + 300, ...claims })

/** A listening app with jwt auth (no issuer pinned, as many single-tenant setups do); its base URL. */
async function jwtApp (t: Test): Promise<string> {
  const { base } = await serve(t, { auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } } }, (app) => { registerWhoami(app.mcp) })
  return base
}

const ping = { jsonrpc: '2.0', id: 7, method: 'ping' }

// Pairs that the joined string could not tell apart: the second must never enter the first's session.
const LOOKALIKES: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
  ['a separator inside iss or sub', { iss: 'a|b', sub: 'c' }, { iss: 'a', sub: 'b|c' }],
  ['a client id and a user of the same name', { iss: 'https://idp.test', client_id: 'alice' }, { iss: 'https://idp.test', sub: 'alice' }],
  ['a subject without issuer and one with', { sub: 'x|y' }, { iss: 'x', sub: 'y' }]
]

t.test('Streamable HTTP: a look-alike identity is a stranger to the session (403)', async (t) => {
  const base = await jwtApp(t)
  for (const [what, owner, other] of LOOKALIKES) {
    const id = await openSessionWith(`${base}/mcp`, bearer(token(owner)))
    const stranger = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': id, ...bearer(token(other)) }, ping)
    t.equal(stranger.status, 403, `${what}: refused`)
    t.equal(JSON.parse(await stranger.text()).error.code, -32000)
    const ownerAgain = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': id, ...bearer(token(owner)) }, ping)
    t.equal(ownerAgain.status, 200, `${what}: the owner, with another token of the same identity, is served`)
    await ownerAgain.text()
  }
})

t.test('legacy SSE: a look-alike identity cannot post into the session (403)', async (t) => {
  const base = await jwtApp(t)
  for (const [what, owner, other] of LOOKALIKES) {
    const stream = await openRawStream(`${base}/sse`, bearer(token(owner)))
    t.teardown(() => { stream.destroy() })
    const endpoint = new URL(endpointOf(await stream.next()), base)
    const post = async (claims: Record<string, unknown>): Promise<number> => (await fetch(endpoint, {
      method: 'POST', headers: { 'content-type': 'application/json', ...bearer(token(claims)) }, body: JSON.stringify(ping)
    })).status
    t.equal(await post(other), 403, `${what}: refused`)
    t.equal(await post(owner), 202, `${what}: the owner is served`)
    stream.destroy()
  }
})

t.test('ctx.auth is structured: method, kind, issuer and subject apart', async (t) => {
  const base = await jwtApp(t)
  const call = async (claims: Record<string, unknown>): Promise<Principal> => {
    const id = await openSessionWith(`${base}/mcp`, bearer(token(claims)))
    const res = await raw(`${base}/mcp`, 'POST', { ...BOTH, 'mcp-session-id': id, ...bearer(token(claims)) },
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'whoami', arguments: {} } })
    return JSON.parse(JSON.parse(await res.text()).result.content[0].text) as Principal
  }
  const user = await call({ iss: 'a|b', sub: 'c', scope: 'read' })
  t.match(user, { method: 'jwt', kind: 'user', issuer: 'a|b', subject: 'c', scopes: ['read'] })
  const client = await call({ iss: 'https://idp.test', client_id: 'alice' })
  t.match(client, { method: 'jwt', kind: 'client', issuer: 'https://idp.test', subject: 'alice' })
  const bare = await call({ sub: 'bob' })
  t.match(bare, { method: 'jwt', kind: 'user', subject: 'bob' })
  t.notOk('issuer' in bare, 'no issuer when the token names none')
})

t.test('samePrincipal and principalKey agree, and the key cannot collide', async (t) => {
  const p = (method: Principal['method'], kind: Principal['kind'], issuer: string | undefined, subject: string): Principal =>
    ({ method, kind, subject, scopes: [], claims: {}, ...(issuer === undefined ? {} : { issuer }) })
  const all = [
    p('jwt', 'user', 'a|b', 'c'), p('jwt', 'user', 'a', 'b|c'), p('jwt', 'user', undefined, 'a|b|c'),
    p('jwt', 'client', 'a', 'b|c'), p('oauth', 'user', 'a', 'b|c'), p('jwt', 'user', '', 'a'),
    p('jwt', 'user', 'a","b', 'c'), p('jwt', 'user', 'a', '","b","c'), p('apikey', 'key', undefined, 'apikey:0123456789ab')
  ]
  const keys = new Set(all.map(principalKey))
  t.equal(keys.size, all.length, 'every identity has its own key')
  for (const a of all) {
    for (const b of all) t.equal(samePrincipal(a, b), a === b, 'samePrincipal is identity equality')
  }
  const fresh = { ...all[0] as Principal, scopes: ['other'], claims: { jti: 'another token' }, expiresAt: 1 }
  t.ok(samePrincipal(all[0], fresh), 'another token of the same identity is the same principal')
  t.equal(principalKey(fresh), principalKey(all[0] as Principal))
  t.ok(samePrincipal(undefined, undefined), 'no auth: no owner, no caller')
  t.notOk(samePrincipal(all[0], undefined))
  t.notOk(samePrincipal(undefined, all[0]))
})
