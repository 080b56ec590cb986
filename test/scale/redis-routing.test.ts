import t from 'tap'
import { createScaleEngine } from '../../src/scale/redis/engine.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import type { EngineRig } from '../helpers/scale-cluster.js'
import { routingSuite } from '../helpers/scale-routing-suite.js'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

// The routing suite of scale-routing.test.ts, unchanged, on the Redis engine: 3 instances in this
// process, a real redis-server as a child process.
t.test('routing on Redis', redisTest(t), async (t) => {
  routingSuite(t, async (t): Promise<EngineRig> => {
    const redis = await startRedis(t)
    return {
      name: 'redis',
      engine: async (instanceId, options) => {
        const scaleOut = resolvePluginOptions({ name: 'x', version: '1', requestState: { secret: 'routing-test-state-secret-0123456789' }, scaleOut: { redis: redis.url, instanceId } }).scaleOut
        if (scaleOut === undefined) throw new Error('scaleOut did not resolve')
        return await createScaleEngine({ ...options, scaleOut }, quiet)
      },
      close: async () => {}
    }
  })
})
