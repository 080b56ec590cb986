// Cross-field and security rules on defaulted options. They run even when the schema check has
// found problems, so one error lists everything; every read is therefore defensive (the value has
// not been validated yet). A rule problem replaces a schema problem at the same path: it says the
// same thing with the reason and the fix.

import { isSecureUrl } from '../util/loopback.js'
import { isAsymmetricAlgorithm, isHmacAlgorithm } from '../auth/algorithms.js'
import { HEADER_TOKEN_PATTERN, ORIGIN_PATTERN, QUERY_PARAM_PATTERN } from './config.js'
import { isRecord } from '../util/is-record.js'

/** One invalid option: its dotted path (`transport.options.port`) and what is wrong. */
export interface OptionsProblem {
  readonly path: string
  readonly message: string
}

type Add = (path: string, message: string) => void
type Dict = Record<string, unknown>

const SECRET_KEYS = new Set(['secret', 'keys', 'clientSecret', 'publicKey', 'redis'])
const RESERVED_HEADERS = new Set(['authorization', 'host', 'content-type', 'cookie'])

/** `join('a', 'b')` = `a.b`, `join('a', 0)` = `a[0]`, `join('', 'b')` = `b`. */
export function join (base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`
  return base === '' ? key : `${base}.${key}`
}

/** True when the value at this path is a credential, which a message must never show. */
export function isSecretPath (path: string): boolean {
  const last = path.split('.').pop() ?? ''
  return SECRET_KEYS.has(last.replace(/\[\d+\]$/, ''))
}

/** A short description of a value for "got ..."; secrets are described by length only. */
export function describeValue (value: unknown, path: string): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return `a list of ${value.length} item${value.length === 1 ? '' : 's'}`
  if (typeof value === 'string') {
    if (isSecretPath(path)) return `a string of ${value.length} character${value.length === 1 ? '' : 's'}`
    return JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)
  }
  if (isSecretPath(path)) return `a ${typeof value}`
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  if (typeof value === 'object') return 'an object'
  return typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`
}

/** Rules of `new MCPServer(options)`. */
export function serverRules (options: unknown): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  const add: Add = (path, message) => { problems.push({ path, message }) }
  if (isRecord(options)) protocolRules(options, add)
  const transport = isRecord(options) ? options.transport : undefined
  if (!isRecord(transport)) return problems
  if (transport.type === 'stdio' && 'options' in transport) {
    add('transport.options', 'stdio takes no options: remove "options", or use { type: \'sse\', options } for HTTP')
  }
  if (transport.type === 'sse' && isRecord(transport.options)) {
    httpRules(transport.options, 'transport.options', add)
    const { requestReadTimeoutMs: whole, headersTimeoutMs: headers } = transport.options
    if (typeof whole === 'number' && typeof headers === 'number' && whole > 0 && headers > whole) {
      add('transport.options.headersTimeoutMs', `${headers} is longer than requestReadTimeoutMs (${whole}), which ` +
        'includes the headers: lower it, or raise requestReadTimeoutMs')
    }
  }
  return problems
}

/** Rules of `fastify.register(mcp, options)`. */
export function pluginRules (options: unknown): OptionsProblem[] {
  const problems: OptionsProblem[] = []
  const add: Add = (path, message) => { problems.push({ path, message }) }
  if (!isRecord(options)) return problems
  protocolRules(options, add)
  for (const key of ['port', 'host']) {
    if (key in options) {
      add(key, `not a plugin option: the Fastify app owns the listener; pass ${key} to app.listen({ ${key} })`)
    }
  }
  const timeouts: Record<string, string> = { requestReadTimeoutMs: 'Fastify({ requestTimeout })', headersTimeoutMs: 'Fastify({ http: { headersTimeout } })' }
  for (const [key, where] of Object.entries(timeouts)) {
    if (key in options) add(key, `not a plugin option: the Fastify app owns the listener; set ${where} (see the README)`)
  }
  httpRules(options, '', add)
  return problems
}

/** `protocols` naming a generation twice is a typo worth naming (the schema would only say "unique"). */
function protocolRules (options: Dict, add: Add): void {
  const protocols = options.protocols
  if (!Array.isArray(protocols)) return
  const seen = new Set<unknown>()
  protocols.forEach((generation, i) => {
    if (seen.has(generation)) add(join('protocols', i), `${JSON.stringify(generation)} is listed twice; list each generation once ('modern', 'legacy')`)
    seen.add(generation)
  })
}

function httpRules (http: Dict, base: string, add: Add): void {
  const seen = new Map<string, string>()
  for (const key of ['endpoint', 'messageEndpoint', 'streamableEndpoint']) {
    const path = http[key]
    if (typeof path !== 'string') continue
    if (!path.startsWith('/') || /[?#]/.test(path)) {
      add(join(base, key), `expected a path starting with "/" and without "?" or "#", got ${JSON.stringify(path)}`)
    }
    const other = seen.get(path)
    if (other !== undefined) {
      add(join(base, key), `same path as ${other} (${JSON.stringify(path)}): each endpoint needs its own path`)
    } else {
      seen.set(path, key)
    }
  }

  const origins = isRecord(http.cors) ? http.cors.allowOrigins : undefined
  if (Array.isArray(origins)) {
    origins.forEach((origin, i) => {
      if (typeof origin !== 'string') return
      const path = join(join(base, 'cors.allowOrigins'), i)
      if (origin === '*') {
        if (http.auth !== undefined) {
          add(path, 'wildcard origin "*" is refused together with auth: any website could call the server ' +
            'with a user\'s credentials; list explicit origins such as "https://app.example.com"')
        }
      } else if (!new RegExp(ORIGIN_PATTERN).test(origin) || !URL.canParse(origin)) {
        add(path, 'expected "*" or an origin such as "https://app.example.com" (scheme://host[:port], ' +
          `no path, no trailing slash), got ${JSON.stringify(origin)}`)
      }
    })
  }

  scaleOutRules(http, base, add)
  eventStoreRule(http, base, add)

  const auth = http.auth
  if (!isRecord(auth) || !isRecord(auth.options)) return
  const at = join(base, 'auth.options')
  if (auth.type === 'jwt') jwtRules(auth.options, at, add)
  if (auth.type === 'apikey') apiKeyRules(auth.options, at, add)
  if (auth.type === 'oauth') oauthRules(auth.options, at, add)
}

/**
 * Stands in for an ioredis client given as `scaleOut.redis` while the options are cloned and
 * checked (a live client must not be cloned); resolve.ts checks the client itself and puts it back.
 */
export const LIVE_REDIS_CLIENT = '\u0000ioredis client'
/** Stands in for an `eventStore` object the same way (resolve.ts checks its methods). */
export const LIVE_EVENT_STORE = '\u0000event store'

function eventStoreRule (http: Dict, base: string, add: Add): void {
  const store = http.eventStore
  if (store === undefined) return
  const at = join(base, 'eventStore')
  if (store !== LIVE_EVENT_STORE) {
    add(at, `expected an EventStore, an object with the methods append, replayAfter, deleteSession, got ${describeValue(store, at)}`)
  } else if (http.stateless === true) {
    add(at, 'refused together with stateless: a stateless server keeps no events to resume; remove one of the two')
  }
}

function scaleOutRules (http: Dict, base: string, add: Add): void {
  const scaleOut = http.scaleOut
  if (!isRecord(scaleOut)) return
  const at = join(base, 'scaleOut')
  if (http.stateless === true) {
    add(at, 'refused together with stateless: a stateless server keeps no sessions to share; remove one of the two ' +
      '(stateless servers scale out without it, behind any balancer)')
  }
  const redis = scaleOut.redis
  const path = join(at, 'redis')
  const expected = 'a redis:// or rediss:// URL such as "redis://127.0.0.1:6379/0", or an ioredis client'
  if (redis === undefined) {
    add(path, `required: ${expected}`)
  } else if (typeof redis !== 'string') {
    add(path, `expected ${expected}, got ${describeValue(redis, path)}`)
  } else if (redis !== LIVE_REDIS_CLIENT) {
    // Never quote the URL: it may hold a password.
    const url = parseUrl(redis)
    if (url === null || url.hostname === '') {
      add(path, `expected ${expected}; the value given is not a URL with a host (not shown: it may hold a password)`)
    } else if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
      add(path, `expected ${expected}, got a ${url.protocol}// URL`)
    } else if (!/^\/?(\d+)?$/.test(url.pathname)) {
      add(path, 'the path of a Redis URL is the database number ("/0"), got another path')
    }
  }
}

function jwtRules (o: Dict, base: string, add: Add): void {
  const algorithms = Array.isArray(o.algorithms) ? o.algorithms : []
  algorithms.forEach((alg, i) => {
    if (typeof alg === 'string' && alg.toLowerCase() === 'none') {
      add(join(join(base, 'algorithms'), i), '"none" is refused: it accepts unsigned tokens, so anyone could ' +
        'forge any identity; list the algorithms your issuer signs with, such as "RS256"')
    }
  })
  const hmac = algorithms.filter((a): a is string => isHmacAlgorithm(a as string))
  const asym = algorithms.filter((a): a is string => isAsymmetricAlgorithm(a as string))
  const [hasSecret, hasKey, hasJwks] = [o.secret !== undefined, o.publicKey !== undefined, o.jwksUri !== undefined]
  const at = (key: string): string => join(base, key)

  if (hmac.length > 0 && asym.length > 0) {
    add(at('algorithms'), `mixes HMAC (${hmac.join(', ')}) with asymmetric (${asym.join(', ')}) algorithms: a verifier ` +
      'accepting both can be tricked into using the public key as an HMAC secret (algorithm confusion); use one family')
  }
  if (hasSecret && hasKey) {
    add(at('publicKey'), 'secret and publicKey cannot both be set: HS* algorithms verify with secret, the others ' +
      'with publicKey or jwksUri; keep the one that matches algorithms')
  }
  if (hasKey && hasJwks) {
    add(at('jwksUri'), 'publicKey and jwksUri cannot both be set: give either a fixed public key or a key set URL')
  }
  const onlyHmac = hmac.length > 0 && asym.length === 0
  const onlyAsym = asym.length > 0 && hmac.length === 0
  if (onlyHmac) {
    const family = hmac.join(', ')
    if (!hasSecret) add(at('secret'), `required for ${family}: set a shared secret of at least 32 bytes, read from the environment`)
    if (hasKey && !hasSecret) {
      add(at('publicKey'), `not used by ${family}: HMAC verifies with secret; remove publicKey, or switch algorithms to RS256 or ES256`)
    }
    if (hasJwks && !hasKey) {
      add(at('jwksUri'), `not used by ${family}: HMAC verifies with secret; remove jwksUri, or switch algorithms to RS256 or ES256`)
    }
  }
  if (onlyAsym) {
    const family = asym.join(', ')
    if (!hasKey && !hasJwks) add(at('publicKey'), `required for ${family}: set publicKey (PEM) or jwksUri`)
    if (hasSecret && !hasKey) {
      add(at('secret'), `not used by ${family}: asymmetric algorithms verify with publicKey or jwksUri; remove secret`)
    }
  }
  if (typeof o.secret === 'string' && !onlyAsym && Buffer.byteLength(o.secret) < 32) {
    add(at('secret'), `too short (${describeValue(o.secret, 'secret')}): an HMAC secret under 32 bytes can be ` +
      'brute-forced offline from one captured token; use at least 32 random bytes, e.g. `openssl rand -base64 48`')
  }
  if (typeof o.publicKey === 'string') {
    if (o.publicKey.includes('PRIVATE KEY')) {
      add(at('publicKey'), 'is a private key: never put private keys in configuration (whoever reads it can mint ' +
        'tokens); the server needs only the public key, "-----BEGIN PUBLIC KEY-----"')
    } else if (!/-----BEGIN (PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE)-----/.test(o.publicKey)) {
      add(at('publicKey'), 'expected a PEM public key ("-----BEGIN PUBLIC KEY-----", "-----BEGIN RSA PUBLIC KEY-----" ' +
        `or "-----BEGIN CERTIFICATE-----"), got ${describeValue(o.publicKey, 'publicKey')}`)
    }
  }
  secureUrl(o.jwksUri, at('jwksUri'), add)
}

function apiKeyRules (o: Dict, base: string, add: Add): void {
  const keysPath = join(base, 'keys')
  if (Array.isArray(o.keys)) {
    if (o.keys.length === 0) add(keysPath, 'at least one key is required (the list is empty)')
    const seen = new Map<string, number>()
    o.keys.forEach((key, i) => {
      if (typeof key !== 'string') return
      const path = join(keysPath, i)
      if (key.length === 0) {
        add(path, 'empty key: it would match an empty credential; remove it')
        return
      }
      if (key.length < 16) {
        add(path, `too short (${describeValue(key, path)}): keys under 16 characters can be guessed; use at least ` +
          '16 random characters, e.g. `openssl rand -hex 32`')
      }
      const first = seen.get(key)
      if (first === undefined) seen.set(key, i)
      else add(path, `duplicate of keys[${first}]: list each key once`)
    })
  }
  const header = o.headerName
  if (typeof header === 'string') {
    if (!new RegExp(HEADER_TOKEN_PATTERN).test(header)) {
      add(join(base, 'headerName'), 'expected an HTTP header name (letters, digits and !#$%&\'*+.^_`|~-), ' +
        `got ${JSON.stringify(header)}`)
    } else if (RESERVED_HEADERS.has(header.toLowerCase())) {
      add(join(base, 'headerName'), `${JSON.stringify(header)} cannot carry the API key: HTTP, proxies or browsers ` +
        'already give it a meaning; use a dedicated header such as "X-API-Key"')
    }
  }
  if (typeof o.queryParam === 'string' && !new RegExp(QUERY_PARAM_PATTERN).test(o.queryParam)) {
    add(join(base, 'queryParam'), 'expected a plain parameter name (letters, digits, "_", "." or "-"), ' +
      `got ${JSON.stringify(o.queryParam)}`)
  }
}

function oauthRules (o: Dict, base: string, add: Add): void {
  secureUrl(o.issuerUrl, join(base, 'issuerUrl'), add)
  if (o.audience === undefined && o.resource === undefined) {
    add(join(base, 'audience'), 'required (or resource): without an expected audience, a token your authorization ' +
      'server issued for any other API would be accepted here (RFC 8707); set the identifier it puts in "aud" ' +
      'for this server, such as "https://mcp.example.com/mcp"')
  }
  if (Array.isArray(o.scopes)) {
    o.scopes.forEach((scope, i) => {
      if (typeof scope !== 'string') return
      if (scope === '') add(join(join(base, 'scopes'), i), 'empty scope: remove it')
      else if (/\s/.test(scope)) {
        add(join(join(base, 'scopes'), i), `a scope has no spaces (give each scope its own entry), got ${JSON.stringify(scope)}`)
      }
    })
  }
  if (typeof o.resource === 'string') {
    const url = parseUrl(o.resource)
    if (url === null || url.hash !== '') {
      add(join(base, 'resource'), 'expected an absolute URL without fragment, such as "https://mcp.example.com/mcp", ' +
        `got ${JSON.stringify(o.resource)}`)
    }
  }
}

/** A key or issuer URL: absolute, https, or http on a loopback host (local development). */
function secureUrl (value: unknown, path: string, add: Add): void {
  if (typeof value !== 'string') return
  const url = parseUrl(value)
  if (url === null) {
    add(path, `expected an absolute https URL such as "https://auth.example.com", got ${JSON.stringify(value)}`)
  } else if (!isSecureUrl(value)) {
    // Show scheme and host only: a URL may carry credentials in its userinfo or query.
    add(path, `use https outside loopback (keys fetched over plain http can be swapped in transit), got ${url.protocol}//${url.host}`)
  }
}

// URL.parse is missing from early Node 20 releases.
function parseUrl (value: string): URL | null {
  return URL.canParse(value) ? new URL(value) : null
}
