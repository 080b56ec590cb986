import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { headerLines } from '../util/header-lines.js'
import type { Principal } from '../protocol/principal.js'
import { invalidRequest, invalidToken, missingCredential } from './errors.js'
import { credentialParams } from './redact.js'
import { param, type AuthMethodOptions, type Strategy } from './strategy.js'

type ApiKeyOptions = AuthMethodOptions<'apikey'>

/** First 12 hex characters of the key's SHA-256: names a key in logs and sessions, cannot be reversed. */
export function keyFingerprint (key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 12)
}

const NO_SCOPES: readonly string[] = Object.freeze([])

/**
 * `type: 'apikey'`. The comparison must leak neither which key matched nor how long the keys
 * are. Comparing the raw strings would do both (`timingSafeEqual` needs equal lengths, so a
 * length check runs first; an early exit shows the index). Instead every configured key is
 * HMAC-ed once at boot with a random per-process key, the presented key is HMAC-ed the same way,
 * and its 32-byte digest is compared with EVERY configured digest, without an early exit. The
 * digests are useless outside this process, and the work is the same whatever was presented.
 */
export function createApiKeyStrategy (options: ApiKeyOptions): Strategy {
  const hmacKey = randomBytes(32)
  const digest = (key: string): Buffer => createHmac('sha256', hmacKey).update(key).digest()
  const digests = options.keys.map(digest)
  // One frozen principal per key, built once: the hot path allocates nothing for it.
  const principals: Principal[] = options.keys.map((key, keyIndex) => {
    const fingerprint = keyFingerprint(key)
    return Object.freeze({
      method: 'apikey' as const,
      kind: 'key' as const,
      subject: `apikey:${fingerprint}`,
      scopes: NO_SCOPES,
      claims: Object.freeze({}),
      keyIndex,
      keyFingerprint: fingerprint
    })
  })
  const header = options.headerName.toLowerCase()
  const queryParam = options.queryParam
  const where = queryParam === undefined
    ? `the ${options.headerName} header`
    : `the ${options.headerName} header or the ${queryParam} query parameter`
  const challenge = [`ApiKey ${param('realm', 'mcp')}`, param('header', options.headerName)]
  if (queryParam !== undefined) challenge.push(param('query', queryParam))

  function match (presented: string): Principal {
    const candidate = digest(presented)
    let found = -1
    for (let i = 0; i < digests.length; i++) {
      // Every digest is compared; the index is kept without leaving the loop.
      const equal = timingSafeEqual(candidate, digests[i] as Buffer)
      found = equal ? i : found
    }
    const principal = principals[found]
    if (principal === undefined) throw invalidToken('Invalid API key')
    return principal
  }

  return {
    authenticate (request: FastifyRequest): Principal {
      // Node joins a repeated header into one `a, b` string, which would then fail as a wrong key
      // (401): the distinct lines tell a key sent twice, a malformed request (400), apart.
      const lines = headerLines(request, header)
      if (lines.length > 1) throw invalidRequest('Send exactly one API key')
      const fromHeader = lines[0]
      // The query string is read only when `queryParam` is configured: a key sent there
      // otherwise is ignored (and the request refused as carrying no key).
      const fromQuery = queryParam === undefined
        ? undefined
        : (request.query as Record<string, unknown> | undefined)?.[queryParam]
      if (fromHeader !== undefined && fromQuery !== undefined) {
        throw invalidRequest('Send the API key in one place only')
      }
      const presented = fromHeader ?? fromQuery
      if (presented === undefined || presented === '') throw missingCredential(`Missing API key: send it in ${where}`)
      // A repeated query parameter parses to a list.
      if (typeof presented !== 'string') throw invalidRequest('Send exactly one API key')
      return match(presented)
    },
    challenge (_request, failure) {
      return failure.presented
        ? [...challenge, param('error', failure.oauthError), param('error_description', failure.message)].join(', ')
        : challenge.join(', ')
    },
    // The configured parameter, and the names a client might wrongly put a key under.
    redactParams: credentialParams({ type: 'apikey', options }),
    // Keys do not expire.
    clockToleranceMs: 0,
    close () {}
  }
}
