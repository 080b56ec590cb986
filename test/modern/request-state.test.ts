import t from 'tap'
import { canonicalJson, digest, requestDigest } from '../../src/protocol/modern/canonical.js'
import { RequestStateCodec, type RequestStateBinding, type RequestStatePayload } from '../../src/protocol/modern/request-state.js'
import type { Principal } from '../../src/protocol/principal.js'

const SECRET = 'a-request-state-secret-of-32-chars-or-more'
const alice: Principal = { method: 'jwt', kind: 'user', issuer: 'https://issuer.example', subject: 'alice', scopes: [], claims: { iss: 'https://issuer.example' } }
const bob: Principal = { method: 'jwt', kind: 'user', issuer: 'https://issuer.example', subject: 'bob', scopes: [], claims: { iss: 'https://issuer.example' } }
const binding: RequestStateBinding = { principal: alice, method: 'tools/call', paramsDigest: requestDigest({ name: 'pay', arguments: { amount: 10 } }) }
const payload: RequestStatePayload = {
  answers: new Map([['confirm', { question: 'q1', result: { action: 'accept', content: { ok: true } } }]]),
  asked: new Map([['amount', 'q2']])
}

function clock (start = 1_000_000): { now: () => number, advance: (ms: number) => void } {
  let time = start
  return { now: () => time, advance: (ms) => { time += ms } }
}

t.test('a sealed state opens for the same principal, method and params, with what it carried', async (t) => {
  const codec = new RequestStateCodec({ secret: SECRET })
  const token = codec.seal(payload, binding)
  t.match(token, /^1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
  const opened = codec.open(token, { ...binding, paramsDigest: requestDigest({ arguments: { amount: 10 }, name: 'pay', _meta: { progressToken: 7 } }) })
  t.same([...opened.answers], [...payload.answers], 'answers survive; key order and _meta do not matter')
  t.same([...opened.asked], [...payload.asked])
  t.notOk(token.includes(SECRET) || Buffer.from(token.split('.')[1] as string, 'base64url').toString().includes('alice'),
    'neither the key nor the principal is written into the token')
})

t.test('every kind of foreign or damaged state is -32602 with a fixed sentence', async (t) => {
  const time = clock()
  const codec = new RequestStateCodec({ secret: SECRET, ttlMs: 60_000, maxBytes: 4096 }, time.now)
  const token = codec.seal(payload, binding)
  const [version, body, mac] = token.split('.') as [string, string, string]
  const flipped = (text: string): string => text.slice(0, -2) + (text.at(-2) === 'A' ? 'B' : 'A') + text.at(-1)
  const notIssued = /^Invalid requestState: it was not issued for this request/
  const cases: Array<[string, unknown, RequestStateBinding, RegExp]> = [
    ['suffix appended', `${token}-TAMPERED`, binding, notIssued],
    ['body modified', `${version}.${flipped(body)}.${mac}`, binding, notIssued],
    ['body swapped for one the client wrote', `${version}.${Buffer.from(JSON.stringify({ x: 9e15, a: {}, p: {} })).toString('base64url')}.${mac}`, binding, notIssued],
    ['mac modified', `${version}.${body}.${flipped(mac)}`, binding, notIssued],
    ['mac truncated', `${version}.${body}.${mac.slice(0, 20)}`, binding, notIssued],
    ['another principal', token, { ...binding, principal: bob }, notIssued],
    ['the same subject from another auth method', token, { ...binding, principal: { ...alice, method: 'oauth' } }, notIssued],
    ['the same subject from another issuer', token, { ...binding, principal: { ...alice, issuer: 'https://evil.example' } }, notIssued],
    ['the same name as a client, not a user', token, { ...binding, principal: { ...alice, kind: 'client' } }, notIssued],
    ['no principal', token, { ...binding, principal: undefined }, notIssued],
    ['another method', token, { ...binding, method: 'prompts/get' }, notIssued],
    ['other arguments', token, { ...binding, paramsDigest: requestDigest({ name: 'pay', arguments: { amount: 10000 } }) }, notIssued],
    ['another version', `2.${body}.${mac}`, binding, /malformed/],
    ['two parts', `${version}.${body}`, binding, /malformed/],
    ['not base64url', `${version}.${body}!.${mac}`, binding, /malformed/],
    ['a number', 42, binding, /must be the string the server sent/],
    ['null', null, binding, /must be the string the server sent/],
    ['empty', '', binding, /must be the string the server sent/],
    ['too long', 'x'.repeat(4097), binding, /longer than 4096 bytes/]
  ]
  for (const [name, candidate, against, message] of cases) {
    t.throws(() => codec.open(candidate, against), { code: -32602, message }, name)
    try {
      codec.open(candidate, against)
    } catch (error) {
      const text = (error as Error).message
      t.notOk(text.includes(SECRET) || text.includes(mac) || text.includes('alice'), `${name}: the error leaks nothing`)
    }
  }
  t.ok(codec.open(token, binding), 'the genuine state still opens')
  t.ok(codec.open(token, { ...binding, principal: { ...alice, scopes: ['admin'], claims: { jti: 'next-token' }, expiresAt: 1 } }),
    'bound to the identity, not to the token: the same caller with a refreshed token goes on')

  const otherServer = new RequestStateCodec({ secret: 'another-secret-of-at-least-32-characters' }, time.now)
  t.throws(() => otherServer.open(token, binding), { code: -32602, message: notIssued }, 'a server with another key refuses it')
  t.ok(new RequestStateCodec({ secret: SECRET }, time.now).open(token, binding), 'a replica with the same secret accepts it')
  t.throws(() => new RequestStateCodec({}, time.now).open(token, binding), { code: -32602 }, 'a generated key is per instance')

  time.advance(60_000)
  t.ok(codec.open(token, binding), 'valid up to its expiry')
  time.advance(1)
  t.throws(() => codec.open(token, binding), { code: -32602, message: /^Invalid requestState: it has expired/ }, 'refused after it')
  t.throws(() => codec.open(`${version}.${flipped(body)}.${mac}`, binding), { code: -32602, message: notIssued },
    'an expired and modified state says nothing about expiry')
})

t.test('a signed payload of the wrong shape is refused, not trusted', async (t) => {
  const codec = new RequestStateCodec({ secret: SECRET })
  // Forge validly signed tokens around odd bodies through the codec's own MAC.
  const mac = (codec as unknown as { mac: (body: string, binding: RequestStateBinding) => Buffer }).mac.bind(codec)
  for (const raw of ['not json', JSON.stringify([1]), JSON.stringify({ x: 'soon', a: {}, p: {} }), JSON.stringify({ x: 9e15, a: { k: 'v' }, p: {} }), JSON.stringify({ x: 9e15, a: {}, p: { k: 1 } })]) {
    const body = Buffer.from(raw).toString('base64url')
    t.throws(() => codec.open(`1.${body}.${mac(body, binding).toString('base64url')}`, binding), { code: -32602, message: 'Invalid requestState: it is malformed' }, raw)
  }
})

t.test('a state too large to issue is the server\'s error; keys like __proto__ stay plain keys', async (t) => {
  const codec = new RequestStateCodec({ secret: SECRET, maxBytes: 1024 })
  const big: RequestStatePayload = { answers: new Map([['k', { question: 'q', result: { text: 'x'.repeat(2000) } }]]), asked: new Map() }
  t.throws(() => codec.seal(big, binding), { code: -32603, message: /exceed requestState.maxBytes \(1024 bytes\)/ })
  const odd: RequestStatePayload = { answers: new Map([['__proto__', { question: 'q', result: { polluted: true } }]]), asked: new Map([['constructor', 'q']]) }
  const opened = codec.open(codec.seal(odd, binding), binding)
  t.same(opened.answers.get('__proto__'), { question: 'q', result: { polluted: true } })
  t.equal(opened.asked.get('constructor'), 'q')
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was touched')
})

t.test('canonical JSON ignores key order, keeps array order, bounds depth', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [3, { d: undefined, c: null }], e: 'x' }), '{"a":[3,{"c":null}],"b":1,"e":"x"}')
  t.equal(canonicalJson([undefined, Infinity]), '[null,null]')
  t.equal(canonicalJson(undefined), 'null')
  t.equal(digest({ a: 1, b: 2 }), digest({ b: 2, a: 1 }))
  t.not(digest([1, 2]), digest([2, 1]))
  t.equal(digest('x', 16).length, 16)
  t.equal(requestDigest({ name: 'a', _meta: { x: 1 }, inputResponses: { k: {} }, requestState: 's' }), requestDigest({ name: 'a' }))
  let deep: unknown = 1
  for (let i = 0; i < 100; i++) deep = [deep]
  t.throws(() => canonicalJson(deep), { code: -32602, message: /nested deeper than 64 levels/ })
})
