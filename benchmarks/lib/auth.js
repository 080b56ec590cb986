// Credentials for the auth-overhead workload: an API key, an HS256 secret, an RSA key pair whose
// public half is served as a JWKS by the runner on 127.0.0.1, and one token per session (each
// client presents its own credential, as real clients do; every server may cache a verified one).
import { createServer } from 'node:http'
import { generateKeyPairSync, randomBytes } from 'node:crypto'
import { createSigner } from 'fast-jwt'

export const AUTH_MODES = ['none', 'apikey', 'jwt-hs256', 'jwt-rs256-jwks']
const ISSUER = 'https://issuer.bench.invalid'
const AUDIENCE = 'bench-mcp'
const KID = 'bench-rs256-1'

export async function createAuthKit () {
  const apiKey = randomBytes(24).toString('hex')
  const secret = randomBytes(48).toString('hex')
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
  const jwk = { ...publicKey.export({ format: 'jwk' }), kid: KID, alg: 'RS256', use: 'sig' }
  const body = JSON.stringify({ keys: [jwk] })
  let jwksRequests = 0
  const jwks = createServer((req, res) => {
    jwksRequests++
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body)
  })
  await new Promise((resolve) => jwks.listen(0, '127.0.0.1', resolve))
  const jwksUri = `http://127.0.0.1:${jwks.address().port}/.well-known/jwks.json`
  const signHs = createSigner({ key: secret, algorithm: 'HS256', iss: ISSUER, aud: AUDIENCE, expiresIn: 3_600_000 })
  const signRs = createSigner({ key: privateKey.export({ type: 'pkcs8', format: 'pem' }), algorithm: 'RS256', kid: KID, iss: ISSUER, aud: AUDIENCE, expiresIn: 3_600_000 })
  const tokens = { 'jwt-hs256': [], 'jwt-rs256-jwks': [] }

  return {
    /** What BENCH_AUTH carries to the servers for `mode`. */
    serverConfig (mode) {
      switch (mode) {
        case 'none': return { mode }
        case 'apikey': return { mode, keys: [apiKey], headerName: 'x-api-key' }
        case 'jwt-hs256': return { mode, secret, issuer: ISSUER, audience: AUDIENCE }
        case 'jwt-rs256-jwks': return { mode, jwksUri, issuer: ISSUER, audience: AUDIENCE }
      }
      throw new Error(`unknown auth mode ${mode}`)
    },
    /** Request headers of session `i` under `mode`. */
    headersFor (mode, i) {
      if (mode === 'none') return {}
      if (mode === 'apikey') return { 'x-api-key': apiKey }
      const list = tokens[mode]
      while (list.length <= i) {
        const sign = mode === 'jwt-hs256' ? signHs : signRs
        list.push(sign({ sub: `client-${list.length}`, scope: 'mcp' }))
      }
      return { authorization: `Bearer ${list[i]}` }
    },
    get jwksRequests () { return jwksRequests },
    close () { jwks.closeAllConnections?.(); jwks.close() }
  }
}
