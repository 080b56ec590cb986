// Issue 24, must-show 1: a failover under load. A primary, 2 replicas and 3 Sentinels (real
// processes, test/helpers/redis-sentinel.ts); 3 instances (child processes, `npm run build` first)
// given the Sentinel configuration, behind the test HAProxy; official SDK clients (Streamable HTTP
// and legacy SSE) calling tools in a loop, each call with a progress and a log on its own stream or
// a log on the session's standalone stream, and a broadcaster beside them (test/helpers/outage-load.ts).
// The replicas are stopped for a second (SIGSTOP: the primary acknowledges writes they never get),
// then the primary is SIGKILLed and the replicas continued: the Sentinels promote a replica that
// lacks the last writes, as asynchronous replication allows. Run by `npm run test:sentinel` (not
// by `npm test`).
import t from 'tap'
import { startLoggedInstances } from '../helpers/ha-deployment.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { startLoad, type Load } from '../helpers/outage-load.js'
import { redisSentinelTest, startSentinelRig } from '../helpers/redis-sentinel.js'
import { sleep, within } from '../helpers/wait.js'

const options = { ...redisSentinelTest(t), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }
/** The must-show's bound: calls succeed again at most this long after the promotion. */
const BACK_WITHIN_MS = 10_000

function succeeded (load: Load): number {
  return load.clients.reduce((sum, client) => sum + client.calls, 0)
}

t.test('the primary SIGKILLed under load: 503 or an answer for every call, never 404; nothing lost or doubled; back within 10 s of the promotion', options, async (t) => {
  const sentinel = await startSentinelRig(t, 2, 3)
  const { url, instances } = await startLoggedInstances(t, sentinel.config)
  const load = await startLoad(t, url, 3)
  // Warm-up: every session used on every instance, before the failover.
  await Promise.all(load.clients.map(async (client) => { for (let i = 0; i < 20; i++) await client.step() }))
  t.same(load.failures, [], 'warm-up without failures')

  load.start()
  await sleep(1000)
  const old = await sentinel.primary()
  t.equal(old, sentinel.servers[0], 'the first server is the primary')
  // The last second of writes reaches the primary only.
  const replicas = sentinel.servers.filter((port) => port !== old)
  for (const port of replicas) sentinel.signal(port, 'SIGSTOP')
  await sleep(1000)
  await sentinel.kill(old)
  for (const port of replicas) sentinel.signal(port, 'SIGCONT')
  const killedAt = Date.now()
  const promoted = await sentinel.promotion(old)
  const promotedAt = Date.now()
  t.not(promoted, old, `a replica was promoted (${promoted}) ${promotedAt - killedAt} ms after the kill`)
  // Service is back once every client has had two calls succeed since (the second started after the promotion).
  const atPromotion = load.clients.map((client) => client.calls)
  await within(() => load.clients.every((client, i) => client.calls >= (atPromotion[i] ?? 0) + 2), { timeoutMs: BACK_WITHIN_MS + 5000 })
  const backAfter = Date.now() - promotedAt
  t.ok(backAfter <= BACK_WITHIN_MS, `every client served again ${backAfter} ms after the promotion`)
  const before = succeeded(load)
  await sleep(2000)
  t.ok(succeeded(load) > before, 'calls go on on the new primary')
  await load.stop()

  t.ok(instances.every((instance) => instance.running()), 'no instance crashed')
  t.same(load.failures.filter((failure) => failure.status !== 503), [], `every call answered or refused with 503 (${load.failures.length} refused), never a 404, none left hanging`)
  t.ok(load.broadcasts > 10, `${load.broadcasts} broadcasts sent`)
  await within(() => load.clients.every((client) => client.account().missing.length === 0), { timeoutMs: 15_000 })
  await sleep(300)
  for (const client of load.clients) {
    const { missing, extra } = client.account()
    t.same({ missing: missing.slice(0, 5), extra: extra.slice(0, 5) }, { missing: [], extra: [] },
      `${client.name}: ${client.expected.length} messages (answers' progress and logs, standalone-stream logs, broadcasts), none lost, none twice`)
  }
  const logs = instances.flatMap((instance) => instance.log).join('\n')
  t.match(logs, /failed over/, 'the instances noticed the failover (a new primary, which may lack the last writes)')
  t.match(logs, /written again/, 'and wrote again the bus messages the old primary had acknowledged last')
})
