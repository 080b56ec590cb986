// What the scale-out security tests share: instances built with the public API (the plugin, each
// its own Fastify app on a real socket) on one real redis-server, raw HTTP as an attacker sends
// it, and what Redis itself says it holds (`DBSIZE`, `INFO memory`, `KEYS`).
import Fastify, { type FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import mcp, { Type } from '../../src/index.js'
import { keysOf } from '../../src/scale/redis/keys.js'
import type { RedisServer } from './redis-server.js'
import { sleep } from './wait.js'

/** The Redis keys of the instances started here (namespace `mcp`, one bus shard). */
export const KEYS = keysOf('mcp')

/** The `requestState` secret every instance of a test deployment shares. */
export const STATE_SECRET = 'scale-attack-state-secret-0123456789'
export const TASKS_CAPABILITY = { extensions: { 'io.modelcontextprotocol/tasks': {} } }

export interface Instance {
  readonly id: string
  readonly app: FastifyInstance
  readonly url: string
}

/**
 * `n` instances `i0`, `i1`... sharing `redis`, each with the tools the attacks use: `echo` (answers
 * its argument), `wait` (a task that waits until cancelled or released). `options` are more plugin
 * options; `scaleOut` adds to the instance's own.
 */
export async function startInstances (t: Test, redis: RedisServer, n: number, options: Record<string, unknown> = {}): Promise<Instance[]> {
  const { scaleOut, ...rest } = options as { scaleOut?: Record<string, unknown> }
  const instances: Instance[] = []
  for (let i = 0; i < n; i++) {
    const id = `i${i}`
    const app = Fastify({ forceCloseConnections: true, bodyLimit: 8 * 1024 * 1024 })
    t.teardown(async () => { await app.close() })
    await app.register(mcp, {
      name: 'attacked',
      version: '1.0.0',
      requestState: { secret: STATE_SECRET },
      ...rest,
      scaleOut: { redis: redis.url, instanceId: id, heartbeatMs: 200, ...scaleOut }
    })
    app.mcp.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => ({ content: [{ type: 'text', text: `${id}:${text.length}` }] }))
    instances.push({ id, app, url: await app.listen({ port: 0, host: '127.0.0.1' }) })
  }
  return instances
}

export interface Answer {
  readonly status: number
  readonly headers: Headers
  readonly text: string
}

/** One POST to `/mcp` (or `path`), raw. */
export async function post (url: string, body: unknown, headers: Record<string, string> = {}, path = '/mcp'): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body)
  })
  return { status: response.status, headers: response.headers, text: await response.text() }
}

/** A 2025-11-25 Streamable HTTP session opened on `url` (initialize, then initialized); its id. */
export async function openSession (url: string, capabilities: Record<string, unknown> = {}): Promise<string> {
  const opened = await post(url, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'attacker', version: '1' } } })
  const id = opened.headers.get('mcp-session-id')
  if (opened.status !== 200 || id === null) throw new Error(`initialize answered ${opened.status}: ${opened.text.slice(0, 200)}`)
  const done = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionHeaders(id))
  if (done.status !== 202) throw new Error(`notifications/initialized answered ${done.status}`)
  return id
}

export function sessionHeaders (sessionId: string): Record<string, string> {
  return { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' }
}

/** Every key Redis holds (a test's Redis is small). */
export async function redisKeys (redis: RedisServer): Promise<string[]> {
  return bulkStrings(await redis.command('KEYS', '*')).sort()
}

/** What Redis says it holds: its key count (`DBSIZE`) and `used_memory` (`INFO memory`), in bytes. */
export async function redisUsage (redis: RedisServer): Promise<{ keys: number, memory: number }> {
  const size = Number(/^:(\d+)/.exec(await redis.command('DBSIZE'))?.[1])
  const info = await redis.command('INFO', 'memory')
  const memory = Number(/used_memory:(\d+)/.exec(info)?.[1])
  if (!Number.isFinite(size) || !Number.isFinite(memory)) throw new Error('could not read DBSIZE or INFO memory')
  return { keys: size, memory }
}

/** An integer reply (`XLEN`, `EXISTS`, `PTTL`...). */
export async function redisInteger (redis: RedisServer, ...command: string[]): Promise<number> {
  const reply = await redis.command(...command)
  const value = /^:(-?\d+)/.exec(reply)?.[1]
  if (value === undefined) throw new Error(`${command.join(' ')} answered ${reply.slice(0, 80)}`)
  return Number(value)
}

/** A bulk string reply (`GET`, `HGET`); undefined for nil. */
export async function redisString (redis: RedisServer, ...command: string[]): Promise<string | undefined> {
  return /^\$\d+\r\n([^]*)\r\n$/.exec(await redis.command(...command))?.[1]
}

/** The strings of an array reply of bulk strings (`KEYS`). */
function bulkStrings (reply: string): string[] {
  const lines = reply.split('\r\n')
  const out: string[] = []
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]?.startsWith('$') === true) out.push(lines[++i] ?? '')
  }
  return out
}

/** Waits until Redis holds no more than `keys` keys and `memory` bytes, or `ms` passed; what it holds then. */
export async function settleTo (redis: RedisServer, bound: { keys: number, memory: number }, ms: number): Promise<{ keys: number, memory: number }> {
  const deadline = Date.now() + ms
  for (;;) {
    const usage = await redisUsage(redis)
    if ((usage.keys <= bound.keys && usage.memory <= bound.memory) || Date.now() > deadline) return usage
    await sleep(100)
  }
}

export interface LegacyStream {
  readonly sessionId: string
  /** The POST path the stream named (`/messages?sessionId=...`). */
  readonly endpoint: string
  /** Every JSON-RPC message the stream carried so far, in order. */
  readonly messages: any[]
  close: () => void
}

/** A legacy SSE stream opened on `url` (`GET /sse`), read as it arrives, initialized through `post`; `headers` on each request. */
export async function openLegacy (t: Test, url: string, postTo = url, headers: Record<string, string> = {}): Promise<LegacyStream> {
  const controller = new AbortController()
  const response = await fetch(`${url}/sse`, { headers: { accept: 'text/event-stream', ...headers }, signal: controller.signal })
  if (response.status !== 200 || response.body === null) throw new Error(`GET /sse answered ${response.status}`)
  const messages: any[] = []
  let endpoint: string | undefined
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  let buffered = ''
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done === true) return
      buffered += value ?? ''
      let end: number
      while ((end = buffered.indexOf('\n\n')) !== -1) {
        const frame = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const event = /^event: (.*)$/m.exec(frame)?.[1]
        const data = frame.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n')
        if (event === 'endpoint') endpoint = data
        else if (data !== '') messages.push(JSON.parse(data))
      }
    }
  })()
  const close = (): void => { controller.abort() }
  t.teardown(close)
  const deadline = Date.now() + 5000
  const named = (): string | undefined => endpoint
  while (named() === undefined && Date.now() < deadline) await sleep(10)
  if (endpoint === undefined) throw new Error('no endpoint event')
  const sessionId = new URL(endpoint, url).searchParams.get('sessionId') ?? ''
  const path = new URL(endpoint, url)
  const initialize = await post(postTo, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'attacker', version: '1' } } }, headers, `${path.pathname}${path.search}`)
  if (initialize.status !== 202) throw new Error(`initialize answered ${initialize.status}`)
  await post(postTo, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers, `${path.pathname}${path.search}`)
  return { sessionId, endpoint: `${path.pathname}${path.search}`, messages, close }
}

/** One 2026-07-28 request with the Tasks extension declared, headers mirroring the body (SEP-2243). */
export async function modernCall (url: string, id: number, method: string, params: Record<string, unknown>): Promise<Answer & { body: any }> {
  const headers: Record<string, string> = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': method }
  const name = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined
  if (typeof name === 'string') headers['mcp-name'] = name
  const answer = await post(url, {
    jsonrpc: '2.0',
    id,
    method,
    params: {
      ...params,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientCapabilities': TASKS_CAPABILITY,
        'io.modelcontextprotocol/clientInfo': { name: 'attacker', version: '1' }
      }
    }
  }, headers)
  const body = answer.headers.get('content-type')?.includes('text/event-stream') === true
    ? JSON.parse(answer.text.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5)).pop() ?? 'null')
    : JSON.parse(answer.text)
  return { ...answer, body }
}
