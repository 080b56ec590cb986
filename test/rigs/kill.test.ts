import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, McpError } from '@modelcontextprotocol/sdk/types.js'
import { textOf } from '../helpers/clients.js'
import { startProcessCluster, type InstanceProcess, type ProcessCluster } from '../helpers/cluster.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { redisTest, type RedisServer } from '../helpers/redis-server.js'
import { sleep, until } from '../helpers/wait.js'

// Issue 12, must-show 4: an instance SIGKILLed under load. Three instances as child processes on
// one real redis-server, behind a real HAProxy round-robin; the official SDK client resumes with
// Last-Event-ID as it does by itself. Heartbeats every 250 ms: an instance is dead once it missed
// three (on Redis's clock) and was still missing one beat later.

const HEARTBEAT_MS = 250

async function rig (t: Test): Promise<ProcessCluster> {
  return await startProcessCluster(t, 'scale-instance.mjs', { settings: { options: { scaleOut: { heartbeatMs: HEARTBEAT_MS } } } })
}

/**
 * A fetch that sends everything through HAProxy, except what the test steers: the session's first
 * GET (its standalone stream) to `firstGet`, the next POST to `pin`, the next resuming GET to `resume`.
 */
function steered (haproxy: string, firstGet?: string): { fetch: typeof fetch, steer: { pin?: string, resume?: string } } {
  const steer: { pin?: string, resume?: string } = {}
  let first = firstGet
  const steeredFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    let base = haproxy
    const resuming = new Headers(init?.headers).has('last-event-id')
    if (init?.method === 'GET' && !resuming && first !== undefined) {
      base = first
      first = undefined
    } else if (init?.method === 'GET' && resuming && steer.resume !== undefined) {
      base = steer.resume
      steer.resume = undefined
    } else if (init?.method === 'POST' && steer.pin !== undefined) {
      base = steer.pin
      steer.pin = undefined
    }
    url.host = new URL(base).host
    return await fetch(url, init)
  }
  return { fetch: steeredFetch as typeof fetch, steer }
}

/**
 * Five reconnection attempts are plenty (HAProxy redispatches away from a dead instance), and few:
 * SDK 1.32.2 keeps one reconnection timer per transport, so a close() during two streams'
 * reconnections leaves the other's attempts running (and this process alive) until they run out.
 */
async function connect (t: Test, haproxy: string, fetchFn: typeof fetch): Promise<{ client: Client, transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'kill-client', version: '1.0.0' }, { capabilities: {} })
  const transport = new StreamableHTTPClientTransport(new URL(`${haproxy}/mcp`), {
    fetch: fetchFn,
    reconnectionOptions: { initialReconnectionDelay: 100, maxReconnectionDelay: 1000, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, transport }
}

/** The instance holding a session's stream 0, as the session's record in Redis says. */
async function gatewayOf (redis: RedisServer, sessionId: string): Promise<string> {
  const reply = await redis.command('HGET', `mcp:s:{${sessionId}}`, 'gw')
  return /^\$\d+\r\n(.*)\r\n$/.exec(reply)?.[1] ?? ''
}

const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1)

const options = { ...redisTest(t), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }

t.test('SIGKILL of the instance holding 20 streams during 50 notifications/s: every client resumes elsewhere, gapless, nothing twice', options, async (t) => {
  const { redis, instances, url: haproxy } = await rig(t)
  const [holder, a, b] = instances as [InstanceProcess, InstanceProcess, InstanceProcess]
  const COUNT = 25
  const sessions: Array<{ client: Client, id: string, seqs: number[], broadcasts: number[], steer: { pin?: string } }> = []
  for (let i = 0; i < 20; i++) {
    const { fetch: fetchFn, steer } = steered(haproxy, holder.url)
    const { client, transport } = await connect(t, haproxy, fetchFn)
    const entry = { client, id: transport.sessionId ?? '', seqs: [] as number[], broadcasts: [] as number[], steer }
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      const data = n.params.data as { seq?: number, b?: number }
      if (data.seq !== undefined) entry.seqs.push(data.seq)
      if (data.b !== undefined) entry.broadcasts.push(data.b)
    })
    sessions.push(entry)
  }
  // The GET streams open after initialize, each straight to the holder.
  await until(async () => (await Promise.all(sessions.map(async (s) => await gatewayOf(redis, s.id)))).every((gw) => gw === holder.id), { timeoutMs: 10_000, what: 'the holder to hold the 20 streams' })

  // 20 sessions × 1 every 400 ms = 50/s, from the other two instances (through the bus), plus a broadcast every 400 ms.
  const first = sessions[0] as (typeof sessions)[number]
  first.steer.pin = b.url
  t.equal(textOf(await first.client.callTool({ name: 'broadcasts', arguments: { count: COUNT, intervalMs: 400 } })), b.id)
  for (const [i, session] of sessions.entries()) {
    const source = i % 2 === 0 ? a : b
    session.steer.pin = source.url
    t.equal(textOf(await session.client.callTool({ name: 'pump', arguments: { count: COUNT, intervalMs: 400 } })), source.id, `session ${i}'s notifications come from ${source.id}`)
  }
  await until(() => sessions.every((s) => s.seqs.length >= 3), { timeoutMs: 10_000, what: 'every client to hear a few' })
  await holder.kill()
  t.comment(`killed ${holder.id} at seq ${Math.min(...sessions.map((s) => s.seqs.length))}..${Math.max(...sessions.map((s) => s.seqs.length))}`)

  await until(() => sessions.every((s) => s.seqs.length >= COUNT && s.broadcasts.length >= COUNT), { timeoutMs: 30_000, what: 'every client to hear everything' })
  // Late duplicates would come right after the last one.
  await sleep(300)
  for (const [i, session] of sessions.entries()) {
    t.same(session.seqs, range(COUNT), `session ${i}: every notification once, in order`)
    t.same(session.broadcasts, range(COUNT), `session ${i}: every broadcast once, in order`)
  }
  const gateways = await Promise.all(sessions.map(async (s) => await gatewayOf(redis, s.id)))
  t.ok(gateways.every((gw) => gw === a.id || gw === b.id), `every stream resumed on a surviving instance (${[...new Set(gateways)].join(', ')})`)
})

t.test('SIGKILL of an executor mid-call: the progress it sent is replayed, then -32603, the tool never runs twice', options, async (t) => {
  const { instances, url: haproxy } = await rig(t)
  const { fetch: fetchFn, steer } = steered(haproxy)
  const { client } = await connect(t, haproxy, fetchFn)
  const ran = (tag: string): InstanceProcess[] => instances.filter((i) => i.lines.some((line) => line.ran === 'slow' && line.tag === tag))

  /** Calls `slow`; once it runs, `kill` is given its executor (and the progress heard); returns the outcome. */
  const call = async (tag: string, retryMs: number, kill: (executor: InstanceProcess, progress: number[]) => Promise<void>): Promise<{ progress: number[], error: unknown, afterKillMs: number }> => {
    const progress: number[] = []
    const pending = client.callTool({ name: 'slow', arguments: { tag, retryMs } }, undefined, {
      onprogress: (p) => { progress.push(p.progress) },
      timeout: 60_000
    }).then(() => undefined, (error: unknown) => error)
    await until(() => ran(tag).length > 0, { timeoutMs: 10_000, what: `call ${tag} to start` })
    const executor = ran(tag)[0] as InstanceProcess
    await kill(executor, progress)
    const killedAt = Date.now()
    const error = await pending
    return { progress, error, afterKillMs: Date.now() - killedAt }
  }

  // B: the client resumes on another instance (steered there) while the executor lives, hears
  // progress 2 forwarded from it, then the executor is killed while the client waits.
  const b = await call('b', 800, async (executor, progress) => {
    steer.resume = instances.find((i) => i !== executor)?.url
    await until(() => progress.length === 2, { timeoutMs: 10_000, what: 'progress 2 forwarded to the client' })
    await executor.kill()
  })
  t.type(b.error, McpError, `call b ended with an error (${String(b.error)})`)
  t.equal((b.error as McpError).code, -32603, 'code -32603')
  t.match((b.error as McpError).message, /instance executing this request stopped before answering/)
  t.same(b.progress, [1, 2], 'progress 1 live, progress 2 forwarded by the executor, each once')
  t.ok(b.afterKillMs < 20_000, `answered ${b.afterKillMs} ms after the kill (heartbeat expiry: ${HEARTBEAT_MS * 3} ms)`)

  // A: the executor is killed while the client is away (its stream closed by the tool); the
  // client comes back through HAProxy: progress 2 is replayed from the shared event store.
  const survivors = instances.filter((i) => i.running())
  const a = await call('a', 1500, async (executor) => {
    await until(() => executor.lines.some((line) => line.progressed === 2 && line.tag === 'a'), { timeoutMs: 10_000, what: 'progress 2 recorded' })
    await executor.kill()
  })
  t.type(a.error, McpError, `call a ended with an error (${String(a.error)})`)
  t.equal((a.error as McpError).code, -32603, 'code -32603')
  t.same(a.progress, [1, 2], 'progress 1 live, progress 2 replayed from the event store, each once')
  t.ok(a.afterKillMs < 20_000, `answered ${a.afterKillMs} ms after the kill`)

  t.equal(ran('a').length + ran('b').length, 2, 'each call ran on exactly one instance, once')
  t.same(instances.flatMap((i) => i.lines).filter((line) => line.ran === 'slow').length, 2, 'the tool ran twice in all: once per call')
  // The session lives on at the last survivor.
  const last = survivors.find((i) => i.running())
  t.equal(textOf(await client.callTool({ name: 'where', arguments: {} })), last?.id, 'the session goes on at the surviving instance')
})
