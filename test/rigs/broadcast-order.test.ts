// Issue 19, item 15: broadcasts made by calls the client sends one after another, each answered
// before the next, to instances taken in turn (a round-robin balancer does that) reach its GET
// stream in the order of the calls, also when the instance holding the stream is SIGKILLed
// mid-run and the stream resumed on another one. One instance reaches Redis through a slow link
// (40 ms more to Redis): before the fix its broadcast was answered before Redis had it, and the
// next call's broadcast, made on another instance, overtook it.
import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { textOf } from '../helpers/clients.js'
import { startInstance, type InstanceProcess } from '../helpers/cluster.js'
import { redisTest, startRedis, type RedisServer } from '../helpers/redis-server.js'
import { slowLink } from '../helpers/slow-link.js'
import { sleep, until } from '../helpers/wait.js'

const LINK_DELAY_MS = 40
const COUNT = 30
const settings = { options: { scaleOut: { heartbeatMs: 250 } } }

interface Deployment {
  redis: RedisServer
  /** Holds the client's GET stream. */
  holder: InstanceProcess
  /** Reaches Redis through the slow link. */
  slow: InstanceProcess
  /** Takes the stream when it resumes. */
  fast: InstanceProcess
}

async function deploy (t: Test): Promise<Deployment> {
  const redis = await startRedis(t)
  const link = await slowLink(t, redis.port, LINK_DELAY_MS)
  const [holder, slow, fast] = await Promise.all([
    startInstance(t, 'scale-instance.mjs', redis.url, 'holder', settings),
    startInstance(t, 'scale-instance.mjs', `redis://127.0.0.1:${link.port}`, 'slow', settings),
    startInstance(t, 'scale-instance.mjs', redis.url, 'fast', settings)
  ])
  return { redis, holder, slow, fast }
}

/**
 * The official client, its requests sent where the test says: the first GET (the standalone
 * stream) to the holder, a resuming GET to `fast`, each POST to `route.post`.
 */
async function connect (t: Test, { holder, fast }: Deployment, route: { post: InstanceProcess }): Promise<{ client: Client, sessionId: string, heard: number[] }> {
  const routed = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const resuming = new Headers(init?.headers).has('last-event-id')
    const to = init?.method === 'POST' ? route.post : init?.method === 'GET' && !resuming ? holder : fast
    url.host = new URL(to.url).host
    return await fetch(url, init)
  }
  const client = new Client({ name: 'order-client', version: '1.0.0' }, { capabilities: {} })
  const transport = new StreamableHTTPClientTransport(new URL(`${fast.url}/mcp`), {
    fetch: routed as typeof fetch,
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  })
  const heard: number[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    if (typeof n.params.data === 'string') heard.push(Number(n.params.data))
  })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, sessionId: transport.sessionId ?? '', heard }
}

/** The instance holding a session's stream 0, as the session's record in Redis says. */
async function gatewayOf (redis: RedisServer, sessionId: string): Promise<string> {
  const reply = await redis.command('HGET', `mcp:s:{${sessionId}}`, 'gw')
  return /^\$\d+\r\n(.*)\r\n$/.exec(reply)?.[1] ?? ''
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1)

for (const kill of [false, true]) {
  const what = kill ? 'the holder SIGKILLed mid-run, the stream resumed elsewhere' : 'the stream on its holder throughout'
  t.test(`broadcasts of calls made in turn on two instances reach the stream in the calls' order (${what})`, redisTest(t), async (t) => {
    const deployment = await deploy(t)
    const { redis, holder, slow, fast } = deployment
    const route = { post: fast }
    const { client, sessionId, heard } = await connect(t, deployment, route)
    await until(async () => await gatewayOf(redis, sessionId) === holder.id, { timeoutMs: 10_000, what: 'the holder to hold the stream' })
    for (const n of range(COUNT)) {
      route.post = n % 2 === 1 ? slow : fast
      t.equal(textOf(await client.callTool({ name: 'broadcast', arguments: { data: String(n) } })), route.post.id, `broadcast ${n} made on ${route.post.id}`)
      if (kill && n === COUNT / 2) await holder.kill()
    }
    await until(() => heard.length >= COUNT, { timeoutMs: 15_000, what: `the ${COUNT} broadcasts on the stream (heard ${heard.join()})` })
    // A late duplicate would come right after the last one.
    await sleep(300)
    t.same(heard, range(COUNT), 'each once, in the order of the calls that made them')
    if (kill) t.equal(await gatewayOf(redis, sessionId), fast.id, 'the stream resumed on a surviving instance')
  })
}
