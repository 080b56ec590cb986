// Keys, tokens and a key set server for the auth tests. Private keys are made per run and never
// leave the test process.
import { createHmac, generateKeyPairSync, type KeyObject } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createSigner } from 'fast-jwt'

export type AsymmetricAlg = 'RS256' | 'PS256' | 'ES256' | 'ES384' | 'EdDSA'

export interface TestKey {
  kid: string
  alg: AsymmetricAlg
  privateKey: KeyObject
  publicPem: string
  /** The public JWK as a key set publishes it. */
  jwk: Record<string, unknown>
}

export function makeKey (alg: AsymmetricAlg, kid: string): TestKey {
  const { privateKey, publicKey } = alg === 'EdDSA'
    ? generateKeyPairSync('ed25519')
    : alg.startsWith('ES')
      ? generateKeyPairSync('ec', { namedCurve: alg === 'ES256' ? 'P-256' : 'P-384' })
      : generateKeyPairSync('rsa', { modulusLength: 2048 })
  return {
    kid,
    alg,
    privateKey,
    publicPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg, use: 'sig' }
  }
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

/** A token signed with `key` (its kid in the header unless `kid: null`; `header` adds members). */
export function signWith (key: TestKey, payload: Record<string, unknown>, options: { kid?: string | null, header?: Record<string, unknown> } = {}): string {
  const kid = options.kid === null ? undefined : options.kid ?? key.kid
  const sign = createSigner({
    key: key.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    algorithm: key.alg,
    ...(kid === undefined ? {} : { kid }),
    ...(options.header === undefined ? {} : { header: { alg: key.alg, ...options.header } }),
    noTimestamp: true
  })
  return sign(payload)
}

/** An RFC 9068 JWT access token (`typ: at+jwt`), as an OAuth authorization server issues it. */
export function signAccessToken (key: TestKey, payload: Record<string, unknown>, typ = 'at+jwt'): string {
  return signWith(key, payload, { header: { typ } })
}

/** An HMAC-signed token. */
export function signHmac (secret: string, payload: Record<string, unknown>, alg: 'HS256' | 'HS384' | 'HS512' = 'HS256'): string {
  return createSigner({ key: secret, algorithm: alg, noTimestamp: true })(payload)
}

export const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url')

/** A hand-made compact JWS: for `alg: none`, algorithm confusion and other forgeries. */
export function forge (header: Record<string, unknown>, payload: Record<string, unknown>, hmacSecret?: string): string {
  const input = `${b64url(header)}.${b64url(payload)}`
  if (hmacSecret === undefined) return `${input}.`
  return `${input}.${createHmac('sha256', hmacSecret).update(input).digest('base64url')}`
}

export interface JwksServer {
  url: string
  /** The keys served now; replace to rotate. */
  keys: TestKey[]
  /** `ok`, `down` (500), `garbage` (not JSON), `huge` (a 1 MiB body) or `redirect` (302 elsewhere). */
  mode: 'ok' | 'down' | 'garbage' | 'huge' | 'redirect'
  /** Requests received. */
  requests: number
  close: () => Promise<void>
}

/** A JSON Web Key Set on 127.0.0.1, counting its requests. */
export async function startJwksServer (keys: TestKey[]): Promise<JwksServer> {
  const state: JwksServer = { url: '', keys, mode: 'ok', requests: 0, close: async () => {} }
  const server: Server = createServer((req, res) => {
    state.requests++
    if (state.mode === 'huge') return res.writeHead(200).end(JSON.stringify({ keys: [], pad: 'x'.repeat(1024 * 1024) }))
    if (state.mode === 'redirect') return res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' }).end()
    if (state.mode === 'down') return res.writeHead(500).end('{}')
    if (state.mode === 'garbage') return res.writeHead(200, { 'content-type': 'application/json' }).end('<html>')
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: state.keys.map((k) => k.jwk) }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`
  state.close = async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return state
}
