// With scaleOut the request-stream events live in Redis, one log per session; the bounds per
// client and overall (eventStoreBytesPerClient, eventStoreBytesTotal) hold per instance: each
// instance counts the sessions it wrote events for, at what their logs held at its last write, and
// gives them back when the session ends anywhere. Two instances in this process, one redis-server,
// raw HTTP from two loopback addresses (two hosts without auth).
import t from 'tap'
import { createScaleEngine } from '../../src/scale/redis/engine.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { installOtel } from '../fixtures/otel.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { startCluster, type EngineRig } from '../helpers/scale-cluster.js'
import { callBig, registerBig, resumesBig } from '../helpers/event-bytes.js'
import { BOTH, openSessionWith, raw } from '../helpers/streamable-raw.js'
import { until } from '../helpers/wait.js'

const KB = 1024
const quiet = { info: () => {}, warn: () => {}, error: () => {} }

t.test('kept events on Redis: a client\'s share is counted by each instance it writes through, and given back when its session ends anywhere', redisTest(t), async (t) => {
  const otel = installOtel()
  t.teardown(otel.shutdown)
  const redis = await startRedis(t)
  const rig: EngineRig = {
    name: 'redis',
    engine: async (instanceId, options) => {
      const scaleOut = resolvePluginOptions({ requestState: { secret: 'event-bytes-test-state-secret-0123456789' }, scaleOut: { redis: redis.url, instanceId } }).scaleOut
      if (scaleOut === undefined) throw new Error('scaleOut did not resolve')
      return await createScaleEngine({ ...options, scaleOut }, quiet)
    },
    close: async () => {}
  }
  const cluster = await startCluster(t, rig, (app) => { registerBig(app.mcp) }, { eventStoreBytes: 8 * KB, eventStoreBytesPerClient: 16 * KB, eventStoreBytesTotal: 24 * KB }, 2)
  const [first, second] = cluster.bases.map((base) => `${base}/mcp`) as [string, string]
  const open = async (address: string): Promise<string> => await openSessionWith(first, {}, '2025-11-25', {}, { localAddress: address })
  const headers = (session: string): Record<string, string> => ({ 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' })
  const call = async (url: string, session: string, address: string): Promise<string> => await callBig(t, url, session, address)
  const resumable = async (url: string, session: string, lastEventId: string): Promise<boolean> => await resumesBig(t, url, session, lastEventId)

  // Sessions opened on the first instance, used on the second: copies rebuilt there count against
  // the client that asks.
  const mine = [await open('127.0.0.1'), await open('127.0.0.1'), await open('127.0.0.1')] as const
  const kept = await call(second, mine[0], '127.0.0.1')
  await call(second, mine[1], '127.0.0.1')
  t.equal(await resumable(second, mine[2], await call(second, mine[2], '127.0.0.1')), false, 'past the client\'s share on this instance: not kept')
  t.equal(await resumable(first, mine[0], kept), true, 'the kept answer resumes on any instance')
  const other = await open('127.0.0.2')
  t.equal(await resumable(second, other, await call(second, other, '127.0.0.2')), true, 'another client is still served')
  t.equal(await resumable(first, mine[2], await call(first, mine[2], '127.0.0.1')), true, 'the other instance counts only what it wrote: the bound holds per instance')

  // The session ends through the first instance; the second hears it and gives the bytes back.
  const ended = await raw(first, 'DELETE', headers(mine[0]))
  t.equal(ended.status, 204)
  await until(async () => {
    const ping = await raw(second, 'POST', { ...BOTH, ...headers(mine[0]) }, { jsonrpc: '2.0', id: 2, method: 'ping' }, { localAddress: '127.0.0.1' })
    await ping.text()
    return ping.status === 404
  }, { what: 'the second instance dropped its copy of the ended session' })
  const again = await open('127.0.0.1')
  t.equal(await resumable(second, again, await call(second, again, '127.0.0.1')), true, 'room again on the second instance')

  const { metrics } = await otel.read()
  const points = metrics.find((m) => m.name === 'fastify_mcp.server.limit.refusals')?.points ?? []
  const counted = Object.fromEntries(points.map((point) => [point.attributes['fastify_mcp.limit'], point.value]))
  t.same(counted, { eventStoreBytesPerClient: 1 }, 'the refusal counted under its option')
})
