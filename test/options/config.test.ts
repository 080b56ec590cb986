import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { InvalidOptionsError } from '../../src/errors.js'
import {
  resolvePluginOptions, resolveServerOptions,
  type InvalidOptions, type ResolvedHttpTransportOptions, type ResolvedServerOptions
} from '../../src/schemas/resolve.js'

const SECRET = 'hs-secret-0123456789-abcdefghijklmnop' // 37 bytes
const KEY = 'apikey-0123456789abcdef'
const { publicKey: PUBLIC_PEM, privateKey: PRIVATE_PEM } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  publicKeyEncoding: { type: 'spki', format: 'pem' },
  privateKeyEncoding: { type: 'pkcs8', format: 'pem' }
})

const HTTP_DEFAULTS = {
  port: 8080,
  host: '127.0.0.1',
  requestReadTimeoutMs: 30000,
  headersTimeoutMs: 10000,
  trustProxy: false,
  endpoint: '/sse',
  messageEndpoint: '/messages',
  streamableEndpoint: '/mcp',
  bodyLimit: 4194304,
  maxSessions: 10000,
  maxSessionsPerClient: 100,
  sessionInitTimeoutMs: 30000,
  maxQueuedBytes: 4194304,
  keepAliveIntervalMs: 15000,
  idleTimeoutMs: 1800000,
  stateless: false,
  eventStoreSize: 100,
  eventStoreBytes: 4194304,
  eventStoreBytesPerClient: 67108864,
  eventStoreBytesTotal: 536870912
}
const LISTEN_DEFAULTS = { listen: { maxStreams: 10000, maxStreamsPerPrincipal: 16, maxResourceSubscriptions: 100, maxRequestBytes: 65536 } }
const TASK_DEFAULTS = { ttlMs: 3600000, pollIntervalMs: 1000, maxTasks: 10000, maxTasksPerPrincipal: 100, maxBytes: 268435456, maxBytesPerPrincipal: 16777216 }
const SERVER_DEFAULTS = {
  name: 'fastify-mcp-server',
  version: '0.0.0',
  pageSize: 100,
  maxMessageBytes: 4194304,
  requestTimeoutMs: 60000,
  maxUriBytes: 8192,
  maxSubscriptions: 100,
  maxInflightRequests: 1000,
  maxInflightBytesPerClient: 33554432,
  maxInflightBytes: 536870912,
  maxInitializeBytes: 16384,
  maxSubscriptionBytesPerClient: 4194304,
  maxSubscriptionBytes: 67108864,
  logLevel: 'warn',
  protocols: ['modern', 'legacy'],
  cache: { ttlMs: 0, scope: 'private' },
  tasks: TASK_DEFAULTS,
  requestState: { ttlMs: 600000, maxBytes: 65536 },
  telemetry: { enabled: true },
  skills: { directoryRead: false, maxEntries: 512, maxFileBytes: 16777216, maxTotalBytes: 16777216 },
  ...LISTEN_DEFAULTS
}

const sse = (options: Record<string, unknown>): unknown => ({ transport: { type: 'sse', options } })
const withAuth = (type: string, options: Record<string, unknown>, extra = {}): unknown =>
  sse({ auth: { type, options }, ...extra })
const jwt = (options: Record<string, unknown>): unknown => withAuth('jwt', options)
const apikey = (options: Record<string, unknown>): unknown => withAuth('apikey', options)
const oauth = (options: Record<string, unknown>): unknown =>
  withAuth('oauth', { issuerUrl: 'https://auth.example.com', clientId: 'mcp', clientSecret: SECRET, audience: 'mcp', ...options })

function httpOf (resolved: ResolvedServerOptions): ResolvedHttpTransportOptions {
  if (resolved.transport.type !== 'sse') throw new Error('expected an sse transport')
  return resolved.transport.options
}

/** The error the resolver throws; a resolver that accepts the input yields an error without problems. */
function refuse (input: unknown, resolver: (input: unknown) => unknown = resolveServerOptions): InvalidOptions {
  try {
    resolver(input)
  } catch (err) {
    return err as InvalidOptions
  }
  return Object.assign(new Error('accepted'), { code: 'ACCEPTED', problems: [] }) as unknown as InvalidOptions
}

t.test('no options, {} and stdio resolve to stdio with every default', async (t) => {
  for (const input of [undefined, {}, { transport: { type: 'stdio' } }]) {
    t.same(resolveServerOptions(input), { ...SERVER_DEFAULTS, transport: { type: 'stdio' } }, JSON.stringify(input))
  }
})

t.test('sse without options gets every HTTP default', async (t) => {
  t.same(resolveServerOptions({ transport: { type: 'sse' } }).transport, { type: 'sse', options: HTTP_DEFAULTS })
  t.same(httpOf(resolveServerOptions(sse({ port: 0, cors: { allowOrigins: [] } }))),
    { ...HTTP_DEFAULTS, port: 0, cors: { allowOrigins: [] } }, 'port 0 and an empty origin list are kept')
  t.equal(httpOf(resolveServerOptions(sse({ streamableEndpoint: false }))).streamableEndpoint, false)
})

t.test('every auth shape of the spec is accepted with its defaults', async (t) => {
  const cases: Array<[string, unknown, Record<string, unknown>]> = [
    ['jwt shared secret', jwt({ secret: SECRET, algorithms: ['HS256'], issuer: 'https://id.example.com', audience: 'mcp' }),
      { clockToleranceSeconds: 5, maxTokenBytes: 8192, requireExp: true, issuer: 'https://id.example.com', audience: 'mcp' }],
    ['jwt public key', jwt({ publicKey: PUBLIC_PEM, algorithms: ['RS256'], issuer: 'https://id.example.com' }),
      { publicKey: PUBLIC_PEM, clockToleranceSeconds: 5 }],
    ['jwt key set', jwt({ jwksUri: 'https://id.example.com/.well-known/jwks.json', algorithms: ['RS256', 'ES256'], audience: 'mcp' }),
      { maxTokenBytes: 8192 }],
    ['jwt key set on loopback http', jwt({ jwksUri: 'http://127.0.0.1:9000/jwks', algorithms: ['EdDSA'] }), {}],
    ['apikey header', apikey({ keys: [KEY] }), { headerName: 'X-API-Key' }],
    ['apikey query parameter', apikey({ keys: [KEY, `${KEY}-2`], headerName: 'X-Mcp-Key', queryParam: 'api_key' }),
      { headerName: 'X-Mcp-Key', queryParam: 'api_key' }],
    ['oauth', oauth({ audience: 'mcp', scopes: ['mcp:tools', 'read'], resource: 'https://mcp.example.com/mcp' }),
      { discoveryTimeoutMs: 5000, introspectionCacheSize: 10000, allowGenericJwtTyp: false, scopes: ['mcp:tools', 'read'] }],
    ['oauth with resource only', withAuth('oauth', { issuerUrl: 'https://auth.example.com', clientId: 'mcp', clientSecret: SECRET, resource: 'https://mcp.example.com/mcp' }),
      { resource: 'https://mcp.example.com/mcp' }],
    ['jwt without exp allowed', jwt({ secret: SECRET, algorithms: ['HS256'], requireExp: false }), { requireExp: false }],
    ['oauth accepting typ JWT', oauth({ allowGenericJwtTyp: true }), { allowGenericJwtTyp: true }],
    ['oauth on localhost', oauth({ issuerUrl: 'http://localhost:8081' }), { issuerUrl: 'http://localhost:8081' }]
  ]
  for (const [name, input, expected] of cases) {
    const http = httpOf(resolveServerOptions(input))
    t.match(http.auth?.options, expected, name)
    t.equal(http.port, 8080, `${name}: HTTP defaults filled too`)
  }
  const withCors = httpOf(resolveServerOptions(withAuth('apikey', { keys: [KEY] }, { cors: { allowOrigins: ['https://app.example.com', 'http://localhost:3000'] } })))
  t.same(withCors.cors, { allowOrigins: ['https://app.example.com', 'http://localhost:3000'] }, 'explicit origins with auth')
})

t.test('the caller\'s object is left alone and the result is deeply frozen', async (t) => {
  const input = { name: 'weather', transport: { type: 'sse', options: { cors: { allowOrigins: [] as string[] }, auth: { type: 'jwt', options: { secret: SECRET, algorithms: ['HS256'] } } } } }
  const before = structuredClone(input)
  const resolved = resolveServerOptions(input)
  t.same(input, before, 'no default written into the input')
  t.notOk(Object.isFrozen(input.transport.options), 'input not frozen')
  const http = httpOf(resolved)
  for (const node of [resolved, resolved.transport, http, http.cors, http.cors?.allowOrigins, http.auth, http.auth?.options]) {
    t.ok(Object.isFrozen(node))
  }
  t.throws(() => { (resolved as { name: string }).name = 'changed' }, TypeError)

  const frozenInput = Object.freeze({ transport: Object.freeze({ type: 'sse' }) })
  t.same(httpOf(resolveServerOptions(frozenInput)), HTTP_DEFAULTS, 'a frozen input is fine: defaults go into a copy')
})

// [what, input, path, message]: one per rule; the path must be named in the error message.
const refusals: Array<[string, unknown, string, RegExp]> = [
  ['port out of range', sse({ port: 70000 }), 'transport.options.port', /^expected an integer from 0 to 65535, got 70000$/],
  ['unknown option', sse({ prot: 80 }), 'transport.options.prot', /^unknown option \(did you mean "port"\?\)$/],
  ['unknown top-level option', { nmae: 'x' }, 'nmae', /did you mean "name"/],
  ['pageSize out of range', { pageSize: 0 }, 'pageSize', /from 1 to 1000, got 0/],
  ['bodyLimit below minimum', sse({ bodyLimit: 10 }), 'transport.options.bodyLimit', /at least 1024/],
  ['wrong type', sse({ stateless: 'yes' }), 'transport.options.stateless', /^expected true or false, got "yes"$/],
  ['options not an object', 'fast', '', /expected an object/],
  ['unknown transport type', { transport: { type: 'http' } }, 'transport.type', /^expected one of "stdio", "sse", got "http"$/],
  ['transport not an object', { transport: 'sse' }, 'transport', /^expected an object with a "type" of "stdio", "sse", got "sse"$/],
  ['transport type missing', { transport: { options: {} } }, 'transport.type', /"stdio", "sse", it is missing/],
  ['stdio with options', { transport: { type: 'stdio', options: { port: 1 } } }, 'transport.options', /stdio takes no options/],
  ['unknown auth type', withAuth('basic', {}), 'transport.options.auth.type', /one of "jwt", "apikey", "oauth", got "basic"/],
  ['auth not an object', sse({ auth: 'jwt' }), 'transport.options.auth', /"type" of "jwt", "apikey", "oauth", got "jwt"/],
  ['auth options missing', sse({ auth: { type: 'jwt' } }), 'transport.options.auth.options', /^required: expected an object$/],
  ['wildcard origin with auth', withAuth('apikey', { keys: [KEY] }, { cors: { allowOrigins: ['*'] } }),
    'transport.options.cors.allowOrigins[0]', /wildcard origin "\*" is refused together with auth/],
  ['origin with a path', sse({ cors: { allowOrigins: ['https://app.example.com/'] } }), 'transport.options.cors.allowOrigins[0]', /no path/],
  ['endpoint without leading slash', sse({ endpoint: 'sse' }), 'transport.options.endpoint', /starting with "\/"/],
  ['endpoint with a query', sse({ messageEndpoint: '/messages?x=1' }), 'transport.options.messageEndpoint', /without "\?" or "#"/],
  ['endpoint reused', sse({ messageEndpoint: '/sse' }), 'transport.options.messageEndpoint', /same path as endpoint/],
  ['streamable endpoint reused', sse({ endpoint: '/mcp' }), 'transport.options.streamableEndpoint', /same path as endpoint/],
  ['jwt none algorithm', jwt({ secret: SECRET, algorithms: ['HS256', 'none'] }), 'transport.options.auth.options.algorithms[1]', /"none" is refused: it accepts unsigned tokens/],
  ['jwt unknown algorithm', jwt({ secret: SECRET, algorithms: ['HS999'] }), 'transport.options.auth.options.algorithms[0]', /one of "HS256", .*"EdDSA", got "HS999"/],
  ['jwt no algorithm', jwt({ secret: SECRET, algorithms: [] }), 'transport.options.auth.options.algorithms', /non-empty list/],
  ['jwt mixed families', jwt({ secret: SECRET, algorithms: ['HS256', 'RS256'] }), 'transport.options.auth.options.algorithms', /algorithm confusion/],
  ['jwt HS without secret', jwt({ algorithms: ['HS256'] }), 'transport.options.auth.options.secret', /required for HS256/],
  ['jwt HS with publicKey', jwt({ publicKey: PUBLIC_PEM, algorithms: ['HS512'] }), 'transport.options.auth.options.publicKey', /not used by HS512/],
  ['jwt HS with jwksUri', jwt({ secret: SECRET, jwksUri: 'https://id.example.com/jwks', algorithms: ['HS256'] }), 'transport.options.auth.options.jwksUri', /not used by HS256/],
  ['jwt asymmetric without key', jwt({ algorithms: ['RS256'] }), 'transport.options.auth.options.publicKey', /required for RS256: set publicKey \(PEM\) or jwksUri/],
  ['jwt asymmetric with secret', jwt({ secret: SECRET, jwksUri: 'https://id.example.com/jwks', algorithms: ['ES256'] }), 'transport.options.auth.options.secret', /not used by ES256/],
  ['jwt secret and publicKey', jwt({ secret: SECRET, publicKey: PUBLIC_PEM, algorithms: ['RS256'] }), 'transport.options.auth.options.publicKey', /secret and publicKey cannot both be set/],
  ['jwt publicKey and jwksUri', jwt({ publicKey: PUBLIC_PEM, jwksUri: 'https://id.example.com/jwks', algorithms: ['RS256'] }), 'transport.options.auth.options.jwksUri', /publicKey and jwksUri cannot both be set/],
  ['jwt secret not a string', jwt({ secret: 12345, algorithms: ['HS256'] }), 'transport.options.auth.options.secret', /^expected a string of at least 32 characters, got a number$/],
  ['jwt short secret', jwt({ secret: 'short-secret', algorithms: ['HS256'] }), 'transport.options.auth.options.secret', /brute-forced/],
  ['jwt publicKey not PEM', jwt({ publicKey: 'ssh-rsa AAAAB3', algorithms: ['RS256'] }), 'transport.options.auth.options.publicKey', /expected a PEM public key/],
  ['jwt private key', jwt({ publicKey: PRIVATE_PEM, algorithms: ['RS256'] }), 'transport.options.auth.options.publicKey', /never put private keys in configuration/],
  ['jwt jwksUri over http', jwt({ jwksUri: 'http://id.example.com/jwks', algorithms: ['RS256'] }), 'transport.options.auth.options.jwksUri', /use https outside loopback/],
  ['jwt jwksUri relative', jwt({ jwksUri: '/jwks.json', algorithms: ['RS256'] }), 'transport.options.auth.options.jwksUri', /absolute https URL/],
  ['jwt negative clock tolerance', jwt({ secret: SECRET, algorithms: ['HS256'], clockToleranceSeconds: -1 }), 'transport.options.auth.options.clockToleranceSeconds', /at least 0/],
  ['apikey without keys', apikey({ keys: [] }), 'transport.options.auth.options.keys', /at least one key is required/],
  ['apikey keys missing', apikey({}), 'transport.options.auth.options.keys', /^required: expected a non-empty list of non-empty strings$/],
  ['apikey empty key', apikey({ keys: [KEY, ''] }), 'transport.options.auth.options.keys[1]', /empty key/],
  ['apikey duplicate key', apikey({ keys: [KEY, KEY] }), 'transport.options.auth.options.keys[1]', /duplicate of keys\[0\]/],
  ['apikey weak key', apikey({ keys: ['letmein'] }), 'transport.options.auth.options.keys[0]', /too short \(a string of 7 characters\)/],
  ['apikey header not a token', apikey({ keys: [KEY], headerName: 'X API Key' }), 'transport.options.auth.options.headerName', /expected an HTTP header name/],
  ...['authorization', 'Host', 'CONTENT-TYPE', 'Cookie'].map((name): [string, unknown, string, RegExp] =>
    [`apikey reserved header ${name}`, apikey({ keys: [KEY], headerName: name }), 'transport.options.auth.options.headerName', /cannot carry the API key/]),
  ['apikey query parameter not a plain name', apikey({ keys: [KEY], queryParam: 'api key' }), 'transport.options.auth.options.queryParam', /plain parameter name/],
  ['oauth issuer over http', oauth({ issuerUrl: 'http://auth.example.com' }), 'transport.options.auth.options.issuerUrl', /use https outside loopback/],
  ['oauth client secret missing', withAuth('oauth', { issuerUrl: 'https://auth.example.com', clientId: 'mcp' }), 'transport.options.auth.options.clientSecret', /required/],
  ['oauth scope with a space', oauth({ scopes: ['read write'] }), 'transport.options.auth.options.scopes[0]', /no spaces/],
  ['oauth empty scope', oauth({ scopes: ['read', ''] }), 'transport.options.auth.options.scopes[1]', /empty scope/],
  ['oauth resource not absolute', oauth({ resource: 'mcp.example.com' }), 'transport.options.auth.options.resource', /absolute URL/],
  ['oauth without audience or resource', withAuth('oauth', { issuerUrl: 'https://auth.example.com', clientId: 'mcp', clientSecret: SECRET }),
    'transport.options.auth.options.audience', /required \(or resource\): .*issued for any other API would be accepted/],
  ['jwt requireExp not a boolean', jwt({ secret: SECRET, algorithms: ['HS256'], requireExp: 'no' }), 'transport.options.auth.options.requireExp', /true or false/]
]

t.test('each rule refuses with its path and a message that explains', async (t) => {
  for (const [what, input, path, message] of refusals) {
    const err = refuse(input)
    t.equal(err.code, 'FST_MCP_INVALID_OPTIONS', what)
    t.ok(err instanceof InvalidOptionsError, `${what}: instance of InvalidOptionsError`)
    const problem = err.problems.find((p) => p.path === path)
    t.match(problem?.message, message, `${what}: ${path}`)
    t.ok(err.message.includes(`\n  ${path === '' ? '(options)' : path}: `), `${what}: the message names ${path}`)
    t.notOk(/expected union value|anyOf/i.test(err.message), `${what}: no raw TypeBox union error`)
  }
})

t.test('one error lists every problem, one per line', async (t) => {
  const err = refuse({
    pageSize: 5000,
    transport: { type: 'sse', options: { port: 70000, prot: 1, cors: { allowOrigins: ['*'] }, auth: { type: 'jwt', options: { algorithms: ['none'] } } } }
  })
  const paths = ['pageSize', 'transport.options.port', 'transport.options.prot', 'transport.options.cors.allowOrigins[0]',
    'transport.options.auth.options.algorithms[0]']
  t.same(err.problems.map((p) => p.path).sort(), paths.sort())
  t.equal(err.message.split('\n').length, 1 + paths.length, 'a heading, then one line per problem')
  t.equal(err.statusCode, 500)
})

t.test('secret values never appear in messages', async (t) => {
  const secrets = ['leaky-jwt-secret', 'leaky-api-key', 'leaky-client-secret-value', PRIVATE_PEM.split('\n')[2] as string]
  const inputs = [
    jwt({ secret: secrets[0], algorithms: ['HS256'] }),
    jwt({ secret: secrets[0], jwksUri: 'https://id.example.com/jwks', algorithms: ['RS256'] }),
    jwt({ secret: secrets[0], algorithms: ['HS256'], secert: secrets[0] }),
    apikey({ keys: [secrets[1], secrets[1], 42] }),
    withAuth('oauth', { issuerUrl: 'ftp://x', clientId: 'mcp', clientSecret: [secrets[2]] }),
    jwt({ publicKey: PRIVATE_PEM, algorithms: ['RS256'] }),
    jwt({ publicKey: secrets[0], algorithms: ['HS256'] })
  ]
  for (const input of inputs) {
    const err = refuse(input)
    for (const secret of secrets) t.notOk(err.message.includes(secret), `not in: ${err.message.split('\n')[1] ?? ''}`)
  }
  t.match(refuse(apikey({ keys: ['abc'] })).message, /a string of 3 characters/, 'described by its length')
})

t.test('plugin options: Fastify register keys stripped, port and host refused', async (t) => {
  const input = { name: 'weather', prefix: '/v1', logLevel: 'warn', logSerializers: {}, endpoint: '/events' }
  const resolved = resolvePluginOptions(input)
  const { port: _p, host: _h, requestReadTimeoutMs: _r, headersTimeoutMs: _t, trustProxy: _tp, ...routeDefaults } = HTTP_DEFAULTS
  t.same(resolved, {
    ...routeDefaults,
    ...LISTEN_DEFAULTS,
    telemetry: { enabled: true },
    name: 'weather',
    version: '0.0.0',
    pageSize: 100,
    requestTimeoutMs: 60000,
    maxUriBytes: 8192,
    maxSubscriptions: 100,
    maxInflightRequests: 1000,
    maxInflightBytesPerClient: 33554432,
    maxInflightBytes: 536870912,
    maxInitializeBytes: 16384,
    maxSubscriptionBytesPerClient: 4194304,
    maxSubscriptionBytes: 67108864,
    endpoint: '/events',
    protocols: ['modern', 'legacy'],
    cache: { ttlMs: 0, scope: 'private' },
    tasks: TASK_DEFAULTS,
    requestState: { ttlMs: 600000, maxBytes: 65536 },
    skills: { directoryRead: false, maxEntries: 512, maxFileBytes: 16777216, maxTotalBytes: 16777216 }
  })
  t.equal(input.prefix, '/v1', 'input untouched')
  t.ok(Object.isFrozen(resolved))
  t.same(resolvePluginOptions(undefined), resolvePluginOptions({}))

  for (const key of ['port', 'host']) {
    const err = refuse({ [key]: key === 'port' ? 8080 : '0.0.0.0' }, resolvePluginOptions)
    t.equal(err.code, 'FST_MCP_INVALID_OPTIONS')
    t.match(err.problems, [{ path: key, message: /app\.listen/ }])
  }
  // The app owns the listener's timeouts too; the README says what to set.
  const timeouts = refuse({ requestReadTimeoutMs: 1000, headersTimeoutMs: 500 }, resolvePluginOptions)
  t.match(timeouts.problems, [
    { path: 'headersTimeoutMs', message: /Fastify\(\{ http: \{ headersTimeout \} \}\)/ },
    { path: 'requestReadTimeoutMs', message: /Fastify\(\{ requestTimeout \}\)/ }
  ])
  const err = refuse({ maxMessageBytes: 2048, auth: { type: 'apikey', options: { keys: [KEY] } }, cors: { allowOrigins: ['*'] } }, resolvePluginOptions)
  t.same(err.problems.map((p) => p.path), ['cors.allowOrigins[0]', 'maxMessageBytes'], 'paths are relative to the plugin options')
})

t.test('protocols and cache: defaults, accepted values, and every bad path named', async (t) => {
  t.same(resolveServerOptions({ protocols: ['modern'] }).protocols, ['modern'])
  t.same(resolvePluginOptions({ protocols: ['legacy'] }).protocols, ['legacy'])
  t.same(resolvePluginOptions({}).protocols, ['modern', 'legacy'])
  t.same(resolveServerOptions({ cache: { ttlMs: 300000, scope: 'public', methods: { 'resources/read': { scope: 'private' } } } }).cache,
    { ttlMs: 300000, scope: 'public', methods: { 'resources/read': { scope: 'private' } } })
  const problems = (input: unknown): string[] => {
    try {
      resolveServerOptions(input)
    } catch (error) {
      return (error as InvalidOptions).problems.map((p) => `${p.path}: ${p.message}`)
    }
    return []
  }
  t.same(problems({ protocols: [] }), ['protocols: expected a non-empty list of values, each one of "modern", "legacy", got a list of 0 items'])
  t.same(problems({ protocols: ['modern', 'modern'] }), ['protocols[1]: "modern" is listed twice; list each generation once (\'modern\', \'legacy\')'])
  t.same(problems({ protocols: ['2026-07-28'] }), ['protocols[0]: expected one of "modern", "legacy", got "2026-07-28"'])
  t.same(problems({ cache: { ttlMs: -1, scope: 'shared', methods: { 'tools/list': { ttlMs: 1.5 }, ping: {} } } }), [
    'cache.methods.ping: unknown option',
    'cache.methods.tools/list.ttlMs: expected an integer of at least 0, got 1.5',
    'cache.scope: expected one of "public", "private", got "shared"',
    'cache.ttlMs: expected an integer of at least 0, got -1'
  ])
  t.same(problems({ cache: { ttlms: 5 } }), ['cache.ttlms: unknown option (did you mean "ttlMs"?)'])
})
