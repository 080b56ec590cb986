// Clients of the Redis outage tests: official SDK clients (Streamable HTTP and legacy SSE) that
// call tools in a loop through the balancer while the test stops or kills Redis, and account for
// every message: each call's answer, its progress and its log (on the call's own stream), a log
// sent after the answer (on the session's standalone stream, through the bus), and every broadcast.
import type { Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { LoggingMessageNotificationSchema, ProgressNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { sleep } from './wait.js'

export type Kind = 'streamable' | 'sse'

/**
 * How long a call may take before it counts as unanswered: far above any call through a 3 s
 * stall, and far below the SDK's own 60 s, which let one lost answer push its rig file past tap's
 * 120 s timeout (a file that times out shows as no failure at all under CI, only a missing summary).
 */
const CALL_TIMEOUT_MS = 20_000

export interface Failure {
  readonly client: string
  readonly tool: string
  /** The HTTP status the SDK reported, when it names one. */
  readonly status: number | undefined
  readonly message: string
}

/** A failed call, with the HTTP status the SDK's error names, if any. */
function failureOf (client: string, tool: string, error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error)
  const status = /HTTP (\d{3})/.exec(message)?.[1]
  return { client, tool, status: status === undefined ? undefined : Number(status), message }
}

export class LoadClient {
  readonly client: Client
  /** Every log notification's data received, in order, as JSON. */
  readonly received: string[] = []
  /** What the server must have sent this client (calls that succeeded), as JSON. */
  readonly expected: string[] = []
  readonly failures: Failure[] = []
  calls = 0
  private next = 0

  constructor (readonly name: string, readonly kind: Kind, private readonly url: string) {
    this.client = new Client({ name, version: '1.0.0' }, { capabilities: {} })
    this.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { this.received.push(JSON.stringify(n.params.data)) })
    // Progress is counted here, by a token of ours: the SDK's own `onprogress` misses a progress
    // that arrives in the same chunk as its response (it handles notifications a tick later).
    this.client.setNotificationHandler(ProgressNotificationSchema, (n) => { this.received.push(JSON.stringify({ progress: n.params.progressToken })) })
  }

  async connect (t: Test): Promise<void> {
    const transport = this.kind === 'streamable'
      ? new StreamableHTTPClientTransport(new URL(`${this.url}/mcp`))
      : new SSEClientTransport(new URL(`${this.url}/sse`))
    await this.client.connect(transport)
    t.teardown(async () => { await this.client.close() })
    await this.client.setLoggingLevel('info')
  }

  /**
   * One call: `work` (answer, progress and log on the call's stream) and `later` (a log on the
   * session's standalone stream after the answer) in turn. A failure is recorded, never thrown.
   */
  async step (): Promise<void> {
    const n = this.next++
    const tool = n % 2 === 0 ? 'work' : 'later'
    const progressToken = `${this.name}-${n}`
    try {
      const result = await this.client.callTool({ name: tool, arguments: { n }, _meta: { progressToken } }, undefined, { timeout: CALL_TIMEOUT_MS })
      const text = (result.content as Array<{ text: string }>)[0]?.text ?? ''
      if (!new RegExp(`^i\\d:${n}$`).test(text)) throw new Error(`wrong answer ${text} to ${tool} ${n}`)
      if (tool === 'work') this.expected.push(JSON.stringify({ n }), JSON.stringify({ progress: progressToken }))
      else this.expected.push(JSON.stringify({ later: n }))
      this.calls++
    } catch (error) {
      this.failures.push(failureOf(this.name, tool, error))
    }
  }

  /** Messages expected and not received, and received more often than expected (or never expected). */
  account (): { missing: string[], extra: string[] } {
    const counts = new Map<string, number>()
    for (const json of this.expected) counts.set(json, (counts.get(json) ?? 0) + 1)
    const extra: string[] = []
    for (const json of this.received) {
      const left = counts.get(json) ?? 0
      if (left === 0) extra.push(json)
      else counts.set(json, left - 1)
    }
    const missing = [...counts].filter(([, left]) => left > 0).map(([json]) => json)
    return { missing, extra }
  }
}

/** Clients calling in parallel loops (each one call at a time) until stopped; a broadcaster beside them. */
export class Load {
  private running = false
  private loops: Array<Promise<void>> = []
  broadcasts = 0

  constructor (readonly clients: LoadClient[], private readonly broadcaster: LoadClient) {}

  start (): void {
    this.running = true
    this.loops = this.clients.map(async (client) => {
      while (this.running) await client.step()
    })
    this.loops.push((async () => {
      while (this.running) {
        const data = `b${this.broadcasts}`
        try {
          await this.broadcaster.client.callTool({ name: 'broadcast', arguments: { data } }, undefined, { timeout: CALL_TIMEOUT_MS })
          // Sent: every client must get it once.
          for (const client of this.clients) client.expected.push(JSON.stringify(data))
          this.broadcasts++
        } catch (error) {
          this.broadcaster.failures.push(failureOf('broadcaster', 'broadcast', error))
        }
        await sleep(100)
      }
    })())
  }

  async stop (): Promise<void> {
    this.running = false
    await Promise.all(this.loops)
  }

  get failures (): Failure[] {
    return [...this.clients, this.broadcaster].flatMap((client) => client.failures)
  }
}

/** `count` clients of each kind, connected through `url`, and a broadcaster. */
export async function startLoad (t: Test, url: string, count: number): Promise<Load> {
  const clients: LoadClient[] = []
  for (let i = 0; i < count; i++) {
    clients.push(new LoadClient(`streamable-${i}`, 'streamable', url), new LoadClient(`sse-${i}`, 'sse', url))
  }
  const broadcaster = new LoadClient('broadcaster', 'streamable', url)
  for (const client of [...clients, broadcaster]) await client.connect(t)
  return new Load(clients, broadcaster)
}
