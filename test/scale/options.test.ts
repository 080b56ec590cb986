// The `scaleOut` option: validated like every option (one coded error naming each bad path, never
// showing a Redis password), refused with `stateless`, and an unreachable Redis fails start().
import Fastify from 'fastify'
import { Redis } from 'ioredis'
import t from 'tap'
import mcp, { MCPServer } from '../../src/index.js'
import { resolvePluginOptions, resolveServerOptions, type InvalidOptions } from '../../src/schemas/resolve.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'

const PASSWORD = 'pw-s3cr3t-Zq9'

function problemsOf (resolve: () => unknown): InvalidOptions {
  try {
    resolve()
  } catch (error) {
    return error as InvalidOptions
  }
  throw new Error('accepted')
}

t.test('scaleOut defaults, on the plugin and on the HTTP transport', async (t) => {
  const plugin = resolvePluginOptions({ scaleOut: { redis: 'redis://127.0.0.1:6379/0' } })
  t.same(plugin.scaleOut, { redis: 'redis://127.0.0.1:6379/0', namespace: 'mcp', heartbeatMs: 2000, redisTimeoutMs: 1000, outboxLimit: 10000, broadcastHistory: 10000 })
  const server = resolveServerOptions({ transport: { type: 'sse', options: { scaleOut: { redis: 'rediss://cache.internal:6380', namespace: 'app1', instanceId: 'pod-7' } } } })
  t.match(server.transport, { options: { scaleOut: { redis: 'rediss://cache.internal:6380', namespace: 'app1', instanceId: 'pod-7' } } })
  t.equal(resolvePluginOptions({}).scaleOut, undefined, 'unset by default: one process holds everything')
})

t.test('an ioredis client is kept as the very same object, never cloned or frozen', async (t) => {
  const client = new Redis({ lazyConnect: true })
  t.teardown(() => { client.disconnect() })
  const input = { scaleOut: { redis: client } }
  const plugin = resolvePluginOptions(input)
  t.equal(plugin.scaleOut?.redis, client)
  t.notOk(Object.isFrozen(client))
  t.ok(Object.isFrozen(plugin.scaleOut))
  t.equal(input.scaleOut.redis, client, 'the caller\'s options are untouched')
  const serverInput = { transport: { type: 'sse' as const, options: { port: 0, scaleOut: { redis: client, heartbeatMs: 500 } } } }
  const server = resolveServerOptions(serverInput)
  t.equal(server.transport.type === 'sse' ? server.transport.options.scaleOut?.redis : undefined, client)
  t.equal(serverInput.transport.options.scaleOut.redis, client)
})

t.test('every bad scaleOut option is named, in one error, without the password', async (t) => {
  const error = problemsOf(() => resolvePluginOptions({
    stateless: true,
    scaleOut: { redis: `http://:${PASSWORD}@127.0.0.1:6379`, namespace: 'has space', instanceId: 'a_b', heartbeatMs: 10, redisTimeoutMs: 0, outboxLimit: 0, broadcastHistory: -1, extra: 1 }
  }))
  t.equal(error.code, 'FST_MCP_INVALID_OPTIONS')
  t.same(error.problems.map((p) => p.path).sort(), [
    'scaleOut', 'scaleOut.broadcastHistory', 'scaleOut.extra', 'scaleOut.heartbeatMs', 'scaleOut.instanceId',
    'scaleOut.namespace', 'scaleOut.outboxLimit', 'scaleOut.redis', 'scaleOut.redisTimeoutMs'
  ])
  t.match(error.problems.find((p) => p.path === 'scaleOut')?.message, /stateless/)
  t.match(error.problems.find((p) => p.path === 'scaleOut.redis')?.message, /redis:\/\/ or rediss:\/\/.*got a http:\/\/ URL/)
  t.notMatch(error.message, PASSWORD)
  t.notMatch(JSON.stringify(error.problems), PASSWORD)
})

t.test('redis: required, a URL with a host and a database path, or an object with duplicate()', async (t) => {
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /required/],
    [42, /got a number/],
    [`not a url ${PASSWORD}`, /not a URL with a host \(not shown/],
    [`redis://:${PASSWORD}@127.0.0.1:6379/some/path`, /database number/],
    [{ host: 'x' }, /without duplicate\(\)/],
    [null, /got null/]
  ]
  for (const [redis, message] of cases) {
    const error = problemsOf(() => resolveServerOptions({ transport: { type: 'sse', options: { scaleOut: redis === undefined ? {} : { redis } } } }))
    const problem = error.problems.find((p) => p.path === 'transport.options.scaleOut.redis')
    t.match(problem?.message, message, String(typeof redis))
    t.notMatch(error.message, PASSWORD)
  }
})

t.test('Redis unreachable at start: start() rejects with a coded error naming host:port, never the password', redisTest(t), async (t) => {
  // A port that was free a moment ago: a server started and killed.
  const redis = await startRedis(t, { password: PASSWORD })
  await redis.kill()
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, scaleOut: { redis: redis.url, redisTimeoutMs: 300 } } } })
  const error = await server.start().then(() => undefined, (e: unknown) => e as Error & { code: string })
  t.equal(error?.code, 'FST_MCP_REDIS_UNREACHABLE')
  t.match(error?.message, `127.0.0.1:${redis.port}`)
  t.notMatch(error?.message, PASSWORD)
  t.notMatch(error?.message, 'redis://')
  await server.stop()

  const app = Fastify()
  await app.register(mcp, { scaleOut: { redis: redis.url, redisTimeoutMs: 300 } }).ready().then(() => t.fail('ready'), (e: Error & { code: string }) => {
    t.equal(e.code, 'FST_MCP_REDIS_UNREACHABLE')
    t.notMatch(e.message, PASSWORD)
  })
  await app.close()
})

t.test('a wrong password fails start() too, and the error does not echo it', redisTest(t), async (t) => {
  const redis = await startRedis(t, { password: PASSWORD })
  const wrong = 'not-the-password-42'
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, scaleOut: { redis: `redis://:${wrong}@127.0.0.1:${redis.port}`, redisTimeoutMs: 500 } } } })
  const error = await server.start().then(() => undefined, (e: unknown) => e as Error & { code: string })
  t.equal(error?.code, 'FST_MCP_REDIS_UNREACHABLE')
  t.match(error?.message, `127.0.0.1:${redis.port}`)
  t.notMatch(error?.message, wrong)
  await server.stop()
})

t.test('with Redis up, start() connects, and stop() closes its own connections only', redisTest(t), async (t) => {
  const redis = await startRedis(t, { password: PASSWORD })
  const client = new Redis(redis.url)
  t.teardown(() => { client.disconnect() })
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, scaleOut: { redis: client, instanceId: 'one' } } } })
  await server.start()
  const names = async (): Promise<string[]> => ((await client.client('LIST')) as string).split('\n').map((l) => /name=(\S*)/.exec(l)?.[1] ?? '').filter((n) => n !== '')
  t.same((await names()).sort(), ['mcp:one:bus', 'mcp:one:cmd'], 'two connections of its own, duplicated from the client')
  t.same(await client.zrange('mcp:live:{0}', '0', '-1'), ['one'], 'it beats')
  await server.stop()
  t.same(await names(), [], 'both closed')
  t.equal(client.status, 'ready', 'the application\'s client is never closed')
  t.same(await client.zrange('mcp:live:{0}', '0', '-1'), [], 'it left the live set')
})

t.test('redis: a Sentinel or Cluster configuration is kept as given; shards is 1 to 64', async (t) => {
  const sentinel = { sentinels: [{ host: '10.0.0.1', port: 26379 }, { host: 'sentinel-b' }], name: 'mymaster', password: PASSWORD, natMap: () => null }
  const plugin = resolvePluginOptions({ scaleOut: { redis: sentinel, shards: 1 } })
  t.equal(plugin.scaleOut?.redis, sentinel, 'the very same object, functions and all')
  t.notOk(Object.isFrozen(sentinel))
  const cluster = { cluster: [{ host: '10.0.0.2', port: 7000 }, '10.0.0.3:7001'], redisOptions: { password: PASSWORD } }
  t.equal(resolvePluginOptions({ scaleOut: { redis: cluster } }).scaleOut?.redis, cluster)
  t.equal(resolvePluginOptions({ scaleOut: { redis: cluster } }).scaleOut?.shards, undefined, 'unset: the engine picks (3 on a Cluster)')
  for (const shards of [0, 65, 2.5, '3']) {
    const error = problemsOf(() => resolvePluginOptions({ scaleOut: { redis: cluster, shards } }))
    t.same(error.problems.map((p) => p.path), ['scaleOut.shards'], `shards ${String(shards)} refused`)
  }
})

t.test('redis: each bad Sentinel or Cluster field is named, never with a password', async (t) => {
  const cases: Array<[unknown, Array<[string, RegExp]>]> = [
    [{ sentinels: [], name: 'm', password: PASSWORD }, [['scaleOut.redis.sentinels', /non-empty list of Sentinels/]]],
    [{ sentinels: [{ port: 26379 }, { host: 'a', port: 70000 }] }, [
      ['scaleOut.redis.name', /required: the primary's name/],
      ['scaleOut.redis.sentinels[0]', /host name/],
      ['scaleOut.redis.sentinels[1].port', /1 to 65535/]
    ]],
    [{ cluster: 'host:7000' }, [['scaleOut.redis.cluster', /non-empty list of seed nodes/]]],
    [{ cluster: ['nohost', { host: 'a', port: 7000 }], redisOptions: PASSWORD }, [
      ['scaleOut.redis.cluster[0]', /"host:port"/],
      ['scaleOut.redis.redisOptions', /object of ioredis options/]
    ]],
    [{ host: 'x', password: PASSWORD }, [['scaleOut.redis', /Sentinel configuration.*Cluster configuration.*without duplicate\(\), sentinels or cluster/]]]
  ]
  for (const [redis, expected] of cases) {
    const error = problemsOf(() => resolvePluginOptions({ scaleOut: { redis } }))
    t.same(error.problems.map((p) => p.path), expected.map(([path]) => path))
    expected.forEach(([, message], i) => { t.match(error.problems[i]?.message, message) })
    t.notMatch(error.message, PASSWORD)
  }
})

t.test('unreachable Sentinels or Cluster: the coded error names every seed host:port, never a password', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  await redis.kill()
  const port = redis.port
  const sentinel = { sentinels: [{ host: '127.0.0.1', port }, { host: '127.0.0.1', port: port + 1 }], name: 'mymaster', password: PASSWORD, sentinelPassword: PASSWORD }
  const cluster = { cluster: [{ host: '127.0.0.1', port }, `127.0.0.1:${port + 1}`], redisOptions: { password: PASSWORD } }
  const { Cluster } = await import('ioredis')
  const given = new Cluster([{ host: '127.0.0.1', port }], { lazyConnect: true, redisOptions: { password: PASSWORD } })
  const givenSentinel = new Redis({ sentinels: [{ host: '127.0.0.1', port }], name: 'mymaster', password: PASSWORD, lazyConnect: true })
  t.teardown(() => { given.disconnect(); givenSentinel.disconnect() })
  for (const [what, target, shown] of [
    ['Sentinel', sentinel, `127.0.0.1:${port}, 127.0.0.1:${port + 1} (Sentinel, primary "mymaster")`],
    ['Cluster', cluster, `127.0.0.1:${port}, 127.0.0.1:${port + 1} (Cluster)`],
    ['Cluster client', given, `127.0.0.1:${port} (Cluster)`],
    ['Sentinel client', givenSentinel, `127.0.0.1:${port} (Sentinel, primary "mymaster")`]
  ] as const) {
    const server = new MCPServer({ transport: { type: 'sse', options: { port: 0, scaleOut: { redis: target, redisTimeoutMs: 300 } } } })
    const error = await server.start().then(() => undefined, (e: unknown) => e as Error & { code: string })
    t.equal(error?.code, 'FST_MCP_REDIS_UNREACHABLE', what)
    t.match(error?.message, shown, `${what}: every seed named`)
    t.notMatch(error?.message, PASSWORD, `${what}: no password`)
    await server.stop()
  }
})
