// Issue 19, items 8 and 14, the Tasks extension on several instances. Item 8: with Redis stalled or
// down, a task call and `tasks/get` answered 200 with -32603; every other request that needs Redis
// answers 503 with Retry-After (the README's error contract), and so do these now. Item 14: a
// `tasks/cancel` taken by another instance than the one running the task did not stop its handler
// until its next store write; it reaches the handler over the bus now, as a cancel does.
import t from 'tap'
import { Type } from '../../src/index.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { modernCall, startInstances, type Instance } from '../helpers/scale-attack.js'
import { until } from '../helpers/wait.js'

/** A task tool that waits until its signal aborts (or `release` is called), on every instance; who saw an abort. */
function registerWait (instances: Instance[]): { aborted: string[], started: string[], release: () => void } {
  const aborted: string[] = []
  const started: string[] = []
  let release = (): void => {}
  const released = new Promise<void>((resolve) => { release = resolve })
  for (const { id, app } of instances) {
    app.mcp.tool({ name: 'wait', inputSchema: Type.Object({}), execution: { taskSupport: 'optional' } }, async (_args, ctx) => {
      started.push(id)
      await Promise.race([released, new Promise((resolve) => { ctx.signal.addEventListener('abort', resolve, { once: true }) })])
      if (ctx.signal.aborted) aborted.push(id)
      return { content: [{ type: 'text', text: `${id} done` }] }
    })
  }
  return { aborted, started, release }
}

t.test('tasks/cancel on another instance stops the handler at once, over the bus', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const instances = await startInstances(t, redis, 2)
  const [i0, i1] = instances as [Instance, Instance]
  const wait = registerWait(instances)
  t.teardown(wait.release)
  const created = await modernCall(i0.url, 1, 'tools/call', { name: 'wait', arguments: {} })
  t.equal(created.body.result?.resultType, 'task', 'a task')
  const taskId = created.body.result.taskId as string
  await until(() => wait.started.includes('i0'), { what: 'the handler runs on i0' })
  const cancelled = await modernCall(i1.url, 2, 'tasks/cancel', { taskId })
  t.equal(cancelled.status, 200, 'the cancel answered by i1')
  await until(() => wait.aborted.includes('i0'), { what: 'the handler on i0 saw its signal abort', timeoutMs: 3000 })
  const got = await modernCall(i1.url, 3, 'tasks/get', { taskId })
  t.equal(got.body.result?.status, 'cancelled')
})

t.test('Redis stalled: a task call and tasks/get answer 503 with Retry-After, and work again after', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const instances = await startInstances(t, redis, 2, { scaleOut: { redisTimeoutMs: 300 } })
  const [i0, i1] = instances as [Instance, Instance]
  const wait = registerWait(instances)
  t.teardown(wait.release)
  const created = await modernCall(i0.url, 1, 'tools/call', { name: 'wait', arguments: {} })
  const taskId = created.body.result.taskId as string

  redis.signal('SIGSTOP')
  t.teardown(() => { redis.signal('SIGCONT') })
  const call = await modernCall(i1.url, 2, 'tools/call', { name: 'wait', arguments: {} })
  t.equal(call.status, 503, 'the task call: 503')
  t.equal(call.headers.get('retry-after'), '5', 'with Retry-After')
  t.match(call.body, { jsonrpc: '2.0', id: 2, error: { code: -32603, message: /retry later/ } }, 'a JSON-RPC error naming the request')
  const get = await modernCall(i1.url, 3, 'tasks/get', { taskId })
  t.equal(get.status, 503, 'tasks/get: 503')
  t.equal(get.headers.get('retry-after'), '5')
  redis.signal('SIGCONT')

  const again = await modernCall(i1.url, 4, 'tasks/get', { taskId })
  t.equal(again.status, 200, 'served again once Redis answers')
  t.equal(again.body.result?.status, 'working')
})

t.test('Redis down: the same', redisTest(t), async (t) => {
  const redis = await startRedis(t)
  const instances = await startInstances(t, redis, 2, { scaleOut: { redisTimeoutMs: 300 } })
  const [, i1] = instances as [Instance, Instance]
  const wait = registerWait(instances)
  t.teardown(wait.release)
  await redis.kill()
  const call = await modernCall(i1.url, 2, 'tools/call', { name: 'wait', arguments: {} })
  t.equal(call.status, 503, 'the task call: 503')
  t.equal(call.headers.get('retry-after'), '5', 'with Retry-After')
  const get = await modernCall(i1.url, 3, 'tasks/get', { taskId: 'any-task' })
  t.equal(get.status, 503, 'tasks/get: 503')
})
