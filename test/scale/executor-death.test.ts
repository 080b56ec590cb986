import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { McpError } from '@modelcontextprotocol/sdk/types.js'
import { MemoryHub } from '../../src/scale/memory/bus.js'
import { createScaleEngine } from '../../src/scale/redis/engine.js'
import type { ScaleEngine } from '../../src/scale/ports.js'
import { resolvePluginOptions } from '../../src/schemas/resolve.js'
import { redisTest, startRedis } from '../helpers/redis-server.js'
import { startCluster, type Cluster, type EngineRig } from '../helpers/scale-cluster.js'
import { sleep, until } from '../helpers/wait.js'

// When the instance executing a request dies (here: its engine closes, which takes it off the
// live set at once, as a SIGKILL does after the heartbeat expiry), a client resuming the request's
// stream on another instance gets what the executor recorded, then -32603, never a hang and never
// a second answer. Three instances in this process, on the in-process engine and on Redis (with
// 100 ms heartbeats). The same with real processes and SIGKILL: scale-kill.test.ts.

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

/** A rig that keeps each instance's engine, so a test can take one instance off the cluster. */
interface KillableRig extends EngineRig {
  readonly engines: Map<string, ScaleEngine>
}

async function memory (): Promise<KillableRig> {
  const hub = new MemoryHub()
  const engines = new Map<string, ScaleEngine>()
  return {
    name: 'memory',
    engines,
    engine: async (id) => { const engine = hub.engine(id); engines.set(id, engine); return engine },
    close: async () => { await hub.close() }
  }
}

function redis (heartbeatMs: number) {
  return async (t: Test): Promise<KillableRig> => {
    const server = await startRedis(t)
    const engines = new Map<string, ScaleEngine>()
    return {
      name: 'redis',
      engines,
      engine: async (instanceId, options) => {
        const scaleOut = resolvePluginOptions({ name: 'x', version: '1', scaleOut: { redis: server.url, instanceId, heartbeatMs } }).scaleOut
        if (scaleOut === undefined) throw new Error('scaleOut did not resolve')
        const engine = await createScaleEngine({ ...options, scaleOut }, quiet)
        engines.set(instanceId, engine)
        return engine
      },
      close: async () => {}
    }
  }
}

const runs: string[] = []

function register (app: FastifyInstance, index: number): void {
  // Progress, its stream closed (the client comes back after 20 ms), progress again, then it waits.
  app.mcp.tool({ name: 'hang', description: 'Reports progress, then waits until aborted' }, async (_args, ctx) => {
    runs.push(`hang@i${index}`)
    ctx.progress(1, 2)
    ctx.closeStream(20)
    await sleep(50)
    ctx.progress(2, 2)
    await new Promise((resolve) => { ctx.signal.addEventListener('abort', resolve); setTimeout(resolve, 30_000).unref() })
    return { content: [{ type: 'text', text: 'never' }] }
  })
  // Progress, its stream closed for 300 ms, and answered meanwhile (recorded, nobody connected).
  app.mcp.tool({ name: 'late', description: 'Answers while its client is away' }, async (_args, ctx) => {
    runs.push(`late@i${index}`)
    ctx.progress(1, 1)
    ctx.closeStream(300)
    await sleep(30)
    return { content: [{ type: 'text', text: `late on i${index}` }] }
  })
}

/** The SDK client: everything to instance 0 (the executor), resumes (GET + Last-Event-ID) to instance 1. */
async function steeredClient (t: Test, cluster: Cluster): Promise<Client> {
  const [executor = '', other = ''] = cluster.bases
  const steer = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const resuming = init?.method === 'GET' && new Headers(init.headers).has('last-event-id')
    url.host = new URL(resuming ? other : executor).host
    return await fetch(url, init)
  }
  const client = new Client({ name: 'death', version: '1.0.0' }, { capabilities: {} })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${executor}/mcp`), {
    fetch: steer as typeof fetch,
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  }))
  t.teardown(async () => { await client.close() })
  return client
}

function suite (t: Test, makeRig: (t: Test) => Promise<KillableRig>): void {
  t.test('the executor dies while the client is attached elsewhere: progress forwarded, then -32603', async (t) => {
    const rig = await makeRig(t)
    const cluster = await startCluster(t, rig, register)
    const client = await steeredClient(t, cluster)
    const progress: number[] = []
    runs.length = 0
    const call = client.callTool({ name: 'hang', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) }, timeout: 20_000 })
      .then(() => undefined, (error: unknown) => error)
    await until(() => progress.length === 2, { timeoutMs: 10_000, what: 'progress 2 reached the client through instance 1' })
    await rig.engines.get('i0')?.close()
    const error = await call
    t.type(error, McpError)
    t.equal((error as McpError).code, -32603, 'answered -32603')
    t.match((error as McpError).message, /stopped before answering; the request was not run again/)
    t.same(progress, [1, 2], 'each progress once')
    t.same(runs, ['hang@i0'], 'ran once, on the executor')
  })

  t.test('the executor answered, then died before the client came back: the recorded answer, not -32603', async (t) => {
    const rig = await makeRig(t)
    const cluster = await startCluster(t, rig, register)
    const client = await steeredClient(t, cluster)
    runs.length = 0
    const progress: number[] = []
    const call = client.callTool({ name: 'late', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) }, timeout: 20_000 })
    await until(() => runs.length === 1, { timeoutMs: 10_000, what: 'answered while the client was away' })
    await sleep(100)
    await rig.engines.get('i0')?.close()
    t.same(await call, { content: [{ type: 'text', text: 'late on i0' }] }, 'the answer recorded by the dead executor, replayed')
    t.same(progress, [1])
    t.same(runs, ['late@i0'])
  })

  t.test('a resume naming an instance that does not hold the session ends at once, unanswered', async (t) => {
    const rig = await makeRig(t)
    const cluster = await startCluster(t, rig, register)
    const initialize = await fetch(`${cluster.bases[0] ?? ''}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
    })
    const session = initialize.headers.get('mcp-session-id') ?? ''
    await initialize.text()
    // i2 never saw the session: it answers the attach with `gone`, and instance 1 has nothing to replay.
    const response = await fetch(`${cluster.bases[1] ?? ''}/mcp`, {
      headers: { accept: 'text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25', 'last-event-id': 'i2.7_3' }
    })
    t.equal(response.status, 200, 'a resume whose outcome is unknown is never refused')
    t.notMatch(await response.text(), /data:/, 'and ends without an event')
  })
}

/** A Redis engine of its own for instance `instanceId`, beating every `heartbeatMs`, closed with the test. */
async function redisEngine (t: Test, url: string, instanceId: string, heartbeatMs: number): Promise<ScaleEngine> {
  const options = resolvePluginOptions({ name: 'x', version: '1', scaleOut: { redis: url, instanceId, heartbeatMs } })
  if (options.scaleOut === undefined) throw new Error('scaleOut did not resolve')
  const started = await createScaleEngine({ ...options, scaleOut: options.scaleOut }, quiet)
  t.teardown(started.close)
  return started
}

t.test('in-process engine', async (t) => { suite(t, memory) })
t.test('Redis engine', redisTest(t), async (t) => { suite(t, redis(100)) })

t.test('liveness is read from the registry when the cached view says no: a new instance, a dead one', redisTest(t), async (t) => {
  const server = await startRedis(t)
  // Beats every 60 s: the cached views are never refreshed during this test.
  const engine = async (instanceId: string): Promise<ScaleEngine> => await redisEngine(t, server.url, instanceId, 60_000)
  const a = await engine('a')
  const b = await engine('b')
  t.notOk(a.bus.alive('b'), 'a started before b: its cached view lacks b')
  t.ok(await a.bus.checkAlive('b'), 'the registry knows b')
  t.ok(a.bus.alive('b'), 'and the cached view learnt it')
  t.ok(await a.bus.checkAlive('a'), 'an instance is alive to itself')
  await b.close()
  t.notOk(await a.bus.checkAlive('b'), 'b left')
  t.notOk(a.bus.alive('b'))
})

t.test('a Redis restarted empty forgets every instance: no death is read into that; a real one still is', redisTest(t), async (t) => {
  const server = await startRedis(t)
  const engine = async (instanceId: string): Promise<ScaleEngine> => await redisEngine(t, server.url, instanceId, 100)
  const a = await engine('a')
  const b = await engine('b')
  const deaths: string[] = []
  a.bus.watchDeath('b', () => { deaths.push('b') })
  await sleep(500)
  await server.kill()
  await server.restart()
  await until(async () => await a.bus.checkAlive('b').catch(() => false) && await b.bus.checkAlive('a').catch(() => false), { timeoutMs: 10_000, what: 'both registered again' })
  await sleep(500)
  t.same(deaths, [], 'b was never taken for dead after the restart')
  // What the registry looks like after a restart, without the connections dropping: whichever
  // instance beats first finds the other missing (each time about one chance in two).
  for (let i = 0; i < 6; i++) {
    await server.command('DEL', 'mcp:live:{0}')
    await sleep(250)
  }
  t.same(deaths, [], 'nor after the live set was emptied six times')
  await b.close()
  await until(() => deaths.length === 1, { timeoutMs: 10_000, what: 'b is dead once it left' })
})

t.test('legacy SSE: a POST landing on an instance started before the stream\'s owner is forwarded, not 404', redisTest(t), async (t) => {
  const rig = await redis(60_000)(t)
  const cluster = await startCluster(t, rig, (app, index) => {
    app.mcp.tool({ name: 'where', description: 'Names the instance' }, async () => ({ content: [{ type: 'text', text: `i${index}` }] }))
  })
  const [first = '', , owner = ''] = cluster.bases
  // The stream on i2 (started last), every POST on i0, whose view of the live set predates i2.
  const steer = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    url.host = new URL(init?.method === 'POST' ? first : owner).host
    return await fetch(url, init)
  }
  t.notOk(rig.engines.get('i0')?.bus.alive('i2'), 'i0 has not seen i2 beat')
  const client = new Client({ name: 'legacy', version: '1.0.0' }, { capabilities: {} })
  await client.connect(new SSEClientTransport(new URL(`${owner}/sse`), { fetch: steer as typeof fetch, eventSourceInit: { fetch: steer as typeof fetch } }))
  t.teardown(async () => { await client.close() })
  t.same(await client.callTool({ name: 'where', arguments: {} }), { content: [{ type: 'text', text: 'i2' }] }, 'executed by the stream\'s owner')
})
