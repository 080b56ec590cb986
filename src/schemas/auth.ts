import { Type, type Static } from '@sinclair/typebox'
import { isAsymmetricAlgorithm, isHmacAlgorithm, JWT_ALGORITHMS } from '../auth/algorithms.js'
import { isRecord } from '../util/is-record.js'
import { isSecureUrl } from '../util/loopback.js'
import { parseUrl } from '../util/url.js'
import { describeValue } from './engine/describe.js'
import { join, type Add } from './engine/problems.js'
import { Defaulted, strict } from './engine/schema.js'

// The `auth` option: `{ type, options }`, one option set per method (jwt, apikey, oauth), and the
// rules a schema cannot state: weak secrets, algorithm confusion, https outside loopback.

/** An HTTP header field name (RFC 9110 token). */
export const HEADER_TOKEN_PATTERN = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$"
/** A plain query parameter name. */
const QUERY_PARAM_PATTERN = '^[A-Za-z0-9_.-]+$'
export const AUTH_PATTERN_WORDS = {
  [HEADER_TOKEN_PATTERN]: 'an HTTP header name',
  [QUERY_PARAM_PATTERN]: 'a plain parameter name'
}

const JwtAuthOptionsSchema = Type.Object({
  /** Shared secret for HS256/HS384/HS512, at least 32 bytes. Read it from the environment. */
  secret: Type.Optional(Type.String({ minLength: 32 })),
  /** PEM public key (`-----BEGIN PUBLIC KEY-----`) or certificate for RS*, PS*, ES* or EdDSA. */
  publicKey: Type.Optional(Type.String({ minLength: 1 })),
  /** https URL of a JSON Web Key Set; keys are fetched by `kid` and rotate automatically. */
  jwksUri: Type.Optional(Type.String({ minLength: 1 })),
  /** Accepted signing algorithms, all HMAC (HS*) or all asymmetric; `none` is refused. */
  algorithms: Type.Array(Type.Union(JWT_ALGORITHMS.map((alg) => Type.Literal(alg))), { minItems: 1 }),
  /** Expected `iss` claim; checked when set. */
  issuer: Type.Optional(Type.String({ minLength: 1 })),
  /** Expected `aud` claim; checked when set. Set it so tokens for other services are refused. */
  audience: Type.Optional(Type.String({ minLength: 1 })),
  /** Clock skew allowed on `exp`, `nbf` and `iat`, in seconds. Default 5. */
  clockToleranceSeconds: Defaulted(Type.Integer({ minimum: 0, default: 5 })),
  /** Largest bearer token accepted, in bytes; longer ones are refused before parsing. Default 8192. */
  maxTokenBytes: Defaulted(Type.Integer({ minimum: 1, default: 8192 })),
  /**
   * Refuse tokens without an `exp` claim: a token that never expires stays valid forever once
   * leaked. Set false only for tokens your issuer cannot give an expiry. Default true.
   */
  requireExp: Defaulted(Type.Boolean({ default: true }))
}, strict)
export type JwtAuthOptions = Static<typeof JwtAuthOptionsSchema>

const ApiKeyAuthOptionsSchema = Type.Object({
  /** Accepted keys, each at least 16 characters; any one of them authenticates. Never logged. */
  keys: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
  /** Request header carrying the key. Default `X-API-Key`. */
  headerName: Defaulted(Type.String({ pattern: HEADER_TOKEN_PATTERN, default: 'X-API-Key' })),
  /** Query parameter that may carry the key instead of the header; unset = header only. */
  queryParam: Type.Optional(Type.String({ minLength: 1, pattern: QUERY_PARAM_PATTERN }))
}, strict)
export type ApiKeyAuthOptions = Static<typeof ApiKeyAuthOptionsSchema>

const OAuthAuthOptionsSchema = Type.Object({
  /** Issuer URL of the authorization server, used for discovery; https outside loopback. */
  issuerUrl: Type.String({ minLength: 1 }),
  /** OAuth client identifier of this server (used for token introspection). */
  clientId: Type.String({ minLength: 1 }),
  /** OAuth client secret of this server. Read it from the environment; never logged. */
  clientSecret: Type.String({ minLength: 1 }),
  /**
   * Expected audience (`aud`) of access tokens: the identifier your authorization server issues
   * tokens for this server under. This or `resource` is required (a token issued for another API
   * of the same issuer must be refused, RFC 8707); unset = `resource` is the audience.
   */
  audience: Type.Optional(Type.String({ minLength: 1 })),
  /** Scopes every access token must carry. Unset = no scope required. */
  scopes: Type.Optional(Type.Array(Type.String({ minLength: 1 }))),
  /**
   * Protected resource identifier (absolute URL, e.g. `https://mcp.example.com/mcp`) advertised in
   * RFC 9728 metadata, and the expected audience when `audience` is unset. Unset = derived from
   * each request's checked Host (never cached publicly).
   */
  resource: Type.Optional(Type.String({ minLength: 1 })),
  /**
   * Also accept JWT access tokens whose header `typ` is `JWT` (or absent), for providers that
   * do not issue RFC 9068 tokens (`typ: at+jwt`). Leaves an ID token of the same issuer and
   * audience usable as an access token, so keep it off when your provider issues `at+jwt`.
   * Default false.
   */
  allowGenericJwtTyp: Defaulted(Type.Boolean({ default: false })),
  /** Timeout of the discovery request to the issuer, in milliseconds. Default 5000. */
  discoveryTimeoutMs: Defaulted(Type.Integer({ minimum: 1, default: 5000 })),
  /** Introspection results kept in memory (entries); 0 disables the cache. Default 10000. */
  introspectionCacheSize: Defaulted(Type.Integer({ minimum: 0, default: 10000 }))
}, strict)
export type OAuthAuthOptions = Static<typeof OAuthAuthOptionsSchema>

/** `{ type, options }`: the option set is chosen by `type`. */
export const AuthOptionsSchema = Type.Union([
  Type.Object({ type: Type.Literal('jwt'), options: JwtAuthOptionsSchema }, strict),
  Type.Object({ type: Type.Literal('apikey'), options: ApiKeyAuthOptionsSchema }, strict),
  Type.Object({ type: Type.Literal('oauth'), options: OAuthAuthOptionsSchema }, strict)
])
export type AuthOptions = Static<typeof AuthOptionsSchema>

type Dict = Record<string, unknown>
const RESERVED_HEADERS = new Set(['authorization', 'host', 'content-type', 'cookie'])

/** Rules of `auth` at `base` (`transport.options.auth` or `auth`). */
export function authRules (auth: unknown, base: string, add: Add): void {
  if (!isRecord(auth) || !isRecord(auth.options)) return
  const at = join(base, 'options')
  if (auth.type === 'jwt') jwtRules(auth.options, at, add)
  if (auth.type === 'apikey') apiKeyRules(auth.options, at, add)
  if (auth.type === 'oauth') oauthRules(auth.options, at, add)
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
