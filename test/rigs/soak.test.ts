import t, { type Test } from 'tap'
import { Redis } from 'ioredis'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { LoggingMessageNotificationSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { startProcessCluster } from '../helpers/cluster.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { startClusterDeployment } from '../helpers/ha-deployment.js'
import { redisClusterTest } from '../helpers/redis-cluster.js'
import { redisTest } from '../helpers/redis-server.js'
import { until, within } from '../helpers/wait.js'

// Issue 12, must-show 3: no loss, no duplicate, order kept. Three instances (child processes) on
// one redis-server behind HAProxy round-robin; official SDK clients talk to HAProxy only. In each
// run: 20 sessions (16 Streamable HTTP, 4 legacy SSE, whose POSTs land anywhere and are forwarded
// to the stream's owner) make 10,000 tools/calls in all, each with a progress and a log on its
// request stream; every 5th asks for a notification on the session's standalone stream (2,000: on
// Streamable HTTP they cross instances through deliver0 whenever the executor is not the stream-0
// holder); 200 broadcasts start from instances picked at random. A fresh cluster per run, so that
// each run starts from empty streams, cursors and caches, as a deployment does.
//
// The full volume (10,000 calls, 2,000 stream-0 notifications, 200 broadcasts, 3 runs) costs
// ~8 ms of CPU per call over all the processes (half of it the SDK clients' fetch and streams),
// ~45 s a run on 2 idle cores: it runs with SCALE_SOAK_FULL=1
// (`npm run build && SCALE_SOAK_FULL=1 npx tap --disable-coverage --timeout=900 test/rigs/soak.test.ts`).
// npm run test:rigs runs one run with 1,000 calls and 200 stream-0 notifications, and all 200
// broadcasts: each run costs a cluster's start and ~15 s of both cores.

const FULL = process.env.SCALE_SOAK_FULL === '1'
/** `SCALE_SOAK_REDIS=cluster`: the same run on a 3-primary Redis Cluster (`npm run test:cluster`). */
const ON_CLUSTER = process.env.SCALE_SOAK_REDIS === 'cluster'
const CALLS = FULL ? 10_000 : 1000
const RUNS = FULL ? 3 : 1
const STREAMABLE = 16
const LEGACY = 4
const SESSIONS = STREAMABLE + LEGACY
/** Calls in flight at once per session: requests of one session overlap, as a busy client's do. */
const LANES = 4
/** Every S0_EVERY-th call also sends a stream-0 notification: 2,000 in 10,000 calls. */
const S0_EVERY = 5
const BROADCASTS = 200

/**
 * What one session heard, counted per call (k), per stream-0 notification and per broadcast. Read
 * at the transport (`onmessage`), in wire order: the SDK client runs notification handlers a
 * microtask later than response handlers, so a progress arriving in the same chunk as its
 * response reaches `onprogress` after the response has removed it ("unknown token"; SDK 1.32.2,
 * typescript-sdk#2580; seen on legacy SSE, whose client dispatches a chunk's events in one go).
 * The progress token is the call's own (`p{k}`), so the server's progress is checked, not the
 * SDK's bookkeeping.
 */
class Tally {
  readonly progress = new Map<number, number>()
  readonly logs = new Map<number, number>()
  readonly s0 = new Map<number, number>()
  /** Per sending instance, the sequence numbers of its stream-0 notifications, in arrival order. */
  readonly s0BySource = new Map<string, number[]>()
  readonly broadcasts: number[] = []
  readonly asked = new Set<number>()
  readonly asked0 = new Set<number>()
  /** Calls whose result came before their own progress and log (or with them twice). */
  early = 0
  readonly errors: string[] = []

  constructor (readonly client: Client, readonly transport: Transport, readonly kind: 'streamable' | 'sse') {
    client.onerror = (error) => { this.errors.push(error.message) }
    // Counted below; the client's own handler would only look for an `onprogress` nobody passed.
    client.setNotificationHandler(ProgressNotificationSchema, () => {})
    client.setNotificationHandler(LoggingMessageNotificationSchema, () => {})
  }

  /** After connect (which sets the transport's handler): every message passes here first. */
  tap (): void {
    const deliver = this.transport.onmessage
    this.transport.onmessage = (message, extra) => {
      this.heard(message as { method?: string, params?: Record<string, unknown>, result?: { content?: Array<{ text?: string }> } })
      deliver?.(message, extra)
    }
  }

  private heard (message: { method?: string, params?: Record<string, unknown>, result?: { content?: Array<{ text?: string }> } }): void {
    if (message.method === 'notifications/progress') {
      const token = String(message.params?.progressToken)
      if (token.startsWith('p')) bump(this.progress, Number(token.slice(1)))
      return
    }
    if (message.method === 'notifications/message') {
      const data = message.params?.data
      if (typeof data === 'string' && data.startsWith('bc:')) {
        this.broadcasts.push(Number(data.slice(3)))
        return
      }
      const record = data as { k?: number, s0?: number, from?: string, seq?: number }
      if (record.s0 !== undefined) {
        bump(this.s0, record.s0)
        const from = String(record.from)
        const seqs = this.s0BySource.get(from) ?? []
        seqs.push(Number(record.seq))
        this.s0BySource.set(from, seqs)
      } else if (record.k !== undefined) {
        bump(this.logs, record.k)
      }
      return
    }
    // A call's result names the call: its progress and log must have come before it, once each.
    const k = /^i\d:(\d+)$/.exec(message.result?.content?.[0]?.text ?? '')?.[1]
    if (k !== undefined && (this.progress.get(Number(k)) !== 1 || this.logs.get(Number(k)) !== 1)) this.early++
  }

  async call (k: number): Promise<void> {
    const s0 = k % S0_EVERY === 0
    this.asked.add(k)
    if (s0) this.asked0.add(k)
    const result = await this.client.callTool({ name: 'soak', arguments: { k, s0 }, _meta: { progressToken: `p${k}` } })
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? ''
    if (!new RegExp(`^i\\d:${k}$`).test(text)) this.errors.push(`call ${k} answered ${text}`)
  }

  /** Whether everything sent to it arrived (the stream-0 notifications and broadcasts trail the calls). */
  get complete (): boolean {
    return this.broadcasts.length >= BROADCASTS && this.s0.size >= this.asked0.size
  }
}

function bump (counts: Map<number, number>, key: number): void {
  counts.set(key, (counts.get(key) ?? 0) + 1)
}

interface Outcome { missing: number, duplicated: number, reordered: number }

/**
 * Missing, duplicated and out-of-order counts over every session, per kind of message. `origin`:
 * the instance each broadcast started on. Broadcasts must arrive in the order their instance sent
 * them, and in one total order, the same for every session; two broadcasts from different
 * instances have no order of their own (`broadcast()` returns before Redis has it: one started on
 * B after one on A returned may be stored first, and was, under load).
 */
function audit (tallies: Tally[], origin: Map<number, string>): Record<'progress' | 'logs' | 'stream0' | 'broadcasts', Outcome> {
  const zero = (): Outcome => ({ missing: 0, duplicated: 0, reordered: 0 })
  const out = { progress: zero(), logs: zero(), stream0: zero(), broadcasts: zero() }
  const count = (outcome: Outcome, asked: Set<number>, got: Map<number, number>): void => {
    for (const k of asked) {
      const n = got.get(k) ?? 0
      if (n === 0) outcome.missing++
      if (n > 1) outcome.duplicated += n - 1
    }
    for (const [k, n] of got) if (!asked.has(k)) outcome.duplicated += n
  }
  for (const tally of tallies) {
    count(out.progress, tally.asked, tally.progress)
    count(out.logs, tally.asked, tally.logs)
    count(out.stream0, tally.asked0, tally.s0)
    // Per source: each instance numbers its notifications to the session 1, 2, 3...
    for (const seqs of tally.s0BySource.values()) {
      for (let i = 1; i < seqs.length; i++) if ((seqs[i] ?? 0) <= (seqs[i - 1] ?? 0)) out.stream0.reordered++
    }
    const seen = new Map<number, number>()
    for (const b of tally.broadcasts) bump(seen, b)
    count(out.broadcasts, new Set(Array.from({ length: BROADCASTS }, (_, i) => i + 1)), seen)
    const last = new Map<string, number>()
    for (const b of tally.broadcasts) {
      const from = origin.get(b) ?? ''
      if (b <= (last.get(from) ?? 0)) out.broadcasts.reordered++
      last.set(from, b)
    }
    const first = tallies[0]?.broadcasts ?? []
    if (tally.broadcasts.some((b, i) => first[i] !== b)) out.broadcasts.reordered++
  }
  return out
}

async function connect (t: Test, url: string, kind: 'streamable' | 'sse'): Promise<Tally> {
  const client = new Client({ name: 'soak', version: '1.0.0' }, { capabilities: {} })
  const transport = kind === 'streamable' ? new StreamableHTTPClientTransport(new URL(`${url}/mcp`)) : new SSEClientTransport(new URL(`${url}/sse`))
  const tally = new Tally(client, transport, kind)
  await client.connect(transport)
  tally.tap()
  t.teardown(async () => { await client.close() })
  return tally
}

async function run (t: Test, round: number): Promise<void> {
  const started = Date.now()
  const cluster = ON_CLUSTER ? await startClusterDeployment(t) : await startProcessCluster(t, 'scale-instance.mjs')
  const redis = 'cluster' in cluster ? cluster.redis : new Redis(cluster.redis.url, { lazyConnect: true })
  if (!('cluster' in cluster)) {
    await redis.connect()
    t.teardown(() => { redis.disconnect() })
  }
  const tallies = await Promise.all(Array.from({ length: SESSIONS }, async (_, i) => await connect(t, cluster.url, i < STREAMABLE ? 'streamable' : 'sse')))
  // A Streamable client opens its GET stream after initialize: notifications for a session whose
  // stream 0 nobody ever held are dropped (as on one instance before any GET). Wait for the claims.
  const claimed = await within(async () => {
    const gateways = await Promise.all(tallies.filter((tally) => tally.kind === 'streamable')
      .map(async (tally) => await redis.hget(`mcp:s:{${tally.transport.sessionId ?? ''}}`, 'gw')))
    return gateways.every((gw) => gw !== null)
  }, { timeoutMs: 10_000, everyMs: 20 })
  t.ok(claimed, 'every session\'s stream 0 is held by an instance')
  // The broadcasters talk to the instances directly, so each broadcast starts where the test says.
  const broadcasters = await Promise.all(cluster.instances.map(async (instance) => {
    const client = new Client({ name: 'broadcaster', version: '1.0.0' }, { capabilities: {} })
    await client.connect(new StreamableHTTPClientTransport(new URL(`${instance.url}/mcp`)))
    t.teardown(async () => { await client.close() })
    return client
  }))

  let sent = 0
  const answered = { calls: 0 }
  const perSession = CALLS / SESSIONS
  const lanes = tallies.flatMap((tally, s) => Array.from({ length: LANES }, async (_, lane) => {
    // Lane `lane` of session `s` makes calls lane, lane + LANES, ... of the session's share.
    for (let i = lane; i < perSession; i += LANES) {
      await tally.call(s * perSession + i + 1)
      answered.calls++
    }
  }))
  const sources = new Map<string, number>()
  const origin = new Map<number, string>()
  // Each broadcast goes to an instance picked at random; each instance's broadcasts go one at a
  // time (so they have an order of their own), the instances' side by side, spread over the calls.
  const picks = Array.from({ length: BROADCASTS }, () => Math.floor(Math.random() * broadcasters.length))
  const broadcasting = broadcasters.map(async (client, instance) => {
    for (let b = 1; b <= BROADCASTS; b++) {
      if (picks[b - 1] !== instance) continue
      await until(() => answered.calls >= Math.min((b - 1) * (CALLS / BROADCASTS), CALLS), { timeoutMs: 300_000, everyMs: 5, what: `the calls before broadcast ${b}` })
      const result = await client.callTool({ name: 'broadcast', arguments: { data: `bc:${b}` } })
      const from = (result.content as Array<{ text: string }>)[0]?.text ?? ''
      sources.set(from, (sources.get(from) ?? 0) + 1)
      origin.set(b, from)
      sent++
    }
  })
  await Promise.all([...lanes, ...broadcasting])
  const callsDone = Date.now()

  t.equal(answered.calls, CALLS, `${CALLS} calls answered`)
  t.equal(sent, BROADCASTS, `${BROADCASTS} broadcasts sent, from ${[...sources].map(([id, n]) => `${id}: ${n}`).join(', ')}`)
  t.equal(sources.size, cluster.instances.length, 'broadcasts started on every instance')
  // Stream-0 notifications and broadcasts may still be on their way when the last call answers.
  await within(() => tallies.every((tally) => tally.complete), { timeoutMs: 15_000, everyMs: 20 })
  const outcome = audit(tallies, origin)
  for (const [kind, { missing, duplicated, reordered }] of Object.entries(outcome)) {
    t.same({ missing, duplicated, reordered }, { missing: 0, duplicated: 0, reordered: 0 }, `${kind}: none missing, duplicated or out of order`)
  }
  t.equal(tallies.reduce((sum, tally) => sum + tally.asked0.size, 0), CALLS / S0_EVERY, `${CALLS / S0_EVERY} stream-0 notifications asked for`)
  t.equal(tallies.reduce((sum, tally) => sum + tally.early, 0), 0, 'every call heard its own progress and log before its result')
  t.same(tallies.flatMap((tally) => tally.errors), [], 'no client error')
  t.comment(`run ${round}: ${CALLS} calls in ${callsDone - started} ms (cluster start included), drained after ${Date.now() - callsDone} ms`)
}

const options = { ...(ON_CLUSTER ? redisClusterTest(t) : redisTest(t)), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }

t.test(`no loss, no duplicate, order kept${ON_CLUSTER ? ' on a Redis Cluster' : ''}: ${CALLS} calls, ${CALLS / S0_EVERY} stream-0 notifications, ${BROADCASTS} broadcasts over ${SESSIONS} sessions, ${RUNS} runs`, options, async (t) => {
  for (let round = 1; round <= RUNS; round++) await t.test(`run ${round} of ${RUNS}, on a fresh cluster`, async (t) => { await run(t, round) })
})
