import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { mountMcp } from '../../src/transports/http/mount.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { MemoryHub } from '../../src/scale/memory/bus.js'
import type { ScaleEngine } from '../../src/scale/ports.js'
import type { MCPPluginOptions } from '../../src/index.js'
import { resolvePluginOptions, type ResolvedPluginOptions } from '../../src/schemas/resolve.js'

/**
 * Where the instances of a cluster get their engines: in-process (one {@link MemoryHub}) or Redis.
 * The routing suite is written against this, so the same tests run on both.
 */
export interface EngineRig {
  readonly name: string
  /** The engine of one instance, for the instance's resolved options (idle timeout, event bounds). */
  engine: (instanceId: string, options: ResolvedPluginOptions) => Promise<ScaleEngine>
  close: () => Promise<void>
}

export async function memoryRig (): Promise<EngineRig> {
  const hub = new MemoryHub()
  return { name: 'memory', engine: async (id) => hub.engine(id), close: async () => { await hub.close() } }
}

export interface Cluster {
  readonly apps: FastifyInstance[]
  readonly bases: string[]
  /** Requests served per instance (index), every method counted. */
  readonly hits: number[]
  /**
   * A fetch that sends each request to the next instance in turn (a non-sticky round-robin
   * balancer), whatever host the client addressed.
   */
  readonly fetch: typeof fetch
  /** The address clients are given (the first instance; `fetch` spreads from there). */
  readonly url: (path: string) => string
}

/**
 * `n` MCP instances in this process, each its own Fastify app and core (registry, sessions),
 * sharing one engine rig; all closed at teardown, apps first.
 */
export async function startCluster (t: Test, rig: EngineRig, register: (app: FastifyInstance, index: number) => void, options: Partial<MCPPluginOptions> = {}, n = 3): Promise<Cluster> {
  const apps: FastifyInstance[] = []
  const bases: string[] = []
  const hits: number[] = []
  const engines: ScaleEngine[] = []
  t.teardown(async () => {
    for (const app of apps) await app.close()
    for (const engine of engines) await engine.close()
    await rig.close()
  })
  for (let i = 0; i < n; i++) {
    const resolved = resolvePluginOptions({ name: 'catalog', version: '1.0.0', ...options })
    const engine = await rig.engine(`i${i}`, resolved)
    engines.push(engine)
    const app = Fastify({ forceCloseConnections: true })
    apps.push(app)
    hits.push(0)
    app.addHook('onRequest', async () => { hits[i] = (hits[i] ?? 0) + 1 })
    const core = new ProtocolServer({ ...resolved, logger: app.log })
    await mountMcp(app, core, resolved, undefined, engine)
    register(app, i)
    bases.push(await app.listen({ port: 0, host: '127.0.0.1' }))
  }
  let next = 0
  const rotating = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    const target = new URL(bases[next++ % n] ?? '')
    url.host = target.host
    return await fetch(url, init)
  }
  return { apps, bases, hits, fetch: rotating as typeof fetch, url: (path) => `${bases[0] ?? ''}${path}` }
}

const capabilities = { sampling: {}, elicitation: {} }

/** The official SDK client over Streamable HTTP, every request through the cluster's balancer. */
export async function clusterStreamable (t: Test, cluster: Cluster, client = new Client({ name: 'scale-client', version: '1.0.0' }, { capabilities })): Promise<{ client: Client, transport: StreamableHTTPClientTransport }> {
  const transport = new StreamableHTTPClientTransport(new URL(cluster.url('/mcp')), {
    fetch: cluster.fetch,
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, transport }
}

/** The official SDK client over legacy SSE: the stream on one instance, POSTs spread over all. */
export async function clusterSse (t: Test, cluster: Cluster, client = new Client({ name: 'scale-client', version: '1.0.0' }, { capabilities })): Promise<{ client: Client, transport: SSEClientTransport }> {
  const transport = new SSEClientTransport(new URL(cluster.url('/sse')), { fetch: cluster.fetch, eventSourceInit: { fetch: cluster.fetch } })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, transport }
}
