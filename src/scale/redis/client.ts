import type { Cluster, Redis as IORedis } from 'ioredis'
import { RedisUnreachableError, ScaleUnavailableError } from '../../errors.js'
import type { ScaleLogger } from '../ports.js'
import { SCRIPTS, type ScriptName } from './scripts.js'
import { openClient } from './topology.js'
import type { RedisTarget } from './targets.js'

// The one place that knows ioredis (with topology.ts, which builds its clients). Everything else
// in src/scale/redis/ calls this port, so a change of client (ioredis' README calls its maintenance
// best-effort) stays inside these two files. ioredis is an optional peer dependency: it is imported
// dynamically, only when `scaleOut` is configured, so an app without scale-out never loads it (nor
// needs it installed). One server, a Sentinel-watched primary and a Cluster look alike through the
// port: commands are routed by ioredis (by slot on a Cluster, following MOVED and ASK).

/** A Redis stream entry: its id and its fields as a flat `[name, value, ...]` list. */
export type StreamEntry = [id: string, fields: string[]]
/** What XREAD answers: per stream key, its new entries; null when the block timed out. */
export type XReadReply = Array<[key: string, entries: StreamEntry[]]> | null

export type { RedisClientLike, RedisTarget } from './targets.js'

/** The commands the engine uses; each Lua script is one EVALSHA (EVAL after a Redis restart). */
export interface RedisPort {
  /** `host:port` of the server (every seed's, with the topology), for errors and logs; never a password. */
  readonly address: string
  /** Whether the connection is up (commands go out now rather than wait in the queue). */
  readonly ready: boolean
  script: (name: ScriptName, keys: string[], args: Array<string | number>) => Promise<unknown>
  hgetall: (key: string) => Promise<Record<string, string>>
  get: (key: string) => Promise<string | null>
  xadd: (key: string, maxLen: number, fields: string[]) => Promise<string>
  /** Entries from `start` to `end`; a start of `(id` is exclusive. */
  xrange: (key: string, start: string, end: string, count?: number) => Promise<StreamEntry[]>
  /** The newest entry id of a stream, '0-0' when it is empty or missing. */
  lastId: (key: string) => Promise<string>
  xread: (streams: Array<[key: string, after: string]>, blockMs: number, count: number) => Promise<XReadReply>
  /** Keys of one slot only (a Cluster refuses others). */
  del: (keys: string[]) => Promise<number>
  pexpire: (key: string, ms: number) => Promise<void>
  /**
   * Who holds the data: the `run_id` of the server (of every primary, on a Cluster). Another answer
   * after a reconnect means the data may be gone (a restart without persistence, a failover to a
   * replica that missed the last writes).
   */
  identity: () => Promise<string>
  on: (event: 'ready' | 'close', listener: () => void) => void
  /** Waits at most `ms` for the connection to be up; false if it is not by then. */
  waitReady: (ms: number) => Promise<boolean>
  /**
   * Counts a request refused (503) because Redis did not answer: the first of an outage is logged,
   * the count when the connection is back.
   */
  refused: (reason: string) => void
  /** A bounded command was answered in time: an outage seen without a reconnect (a stall) is over. */
  answered: () => void
  /**
   * Closes our connection (a duplicate of the application's client, or one we opened): after the
   * replies in flight, or at once when `graceful` is false (a connection blocked in XREAD would
   * hold QUIT until its block ends).
   */
  close: (graceful?: boolean) => Promise<void>
}

export interface ConnectOptions {
  /** `redis://` / `rediss://` URL, a Sentinel or Cluster configuration, or the application's ioredis client. */
  redis: RedisTarget
  /** Shown in `CLIENT LIST`, so an operator can tell the engine's connections apart. */
  name: string
  /** Longest wait for the first connection before start fails. */
  connectTimeoutMs: number
  log: ScaleLogger
}

/**
 * Opens one connection and waits until it answers. Rejects with {@link RedisUnreachableError}
 * naming `host:port` (never the URL: it may carry a password). Commands issued while the
 * connection is down wait in ioredis' queue, in order, and unanswered ones are re-sent after a
 * reconnect (`maxRetriesPerRequest: null`): the engine bounds that queue itself (`outboxLimit`) and
 * times out the calls that must not wait (`redisTimeoutMs`).
 */
export async function connectRedis (options: ConnectOptions): Promise<RedisPort> {
  const { client, address, secrets } = await openClient(options.redis, { name: options.name, connectTimeoutMs: options.connectTimeoutMs, scripts: SCRIPTS })
  const port = new IoredisPort(client, address, secrets, options.log)
  try {
    await withTimeout(client.connect(), options.connectTimeoutMs)
    await withTimeout(client.ping(), options.connectTimeoutMs)
  } catch (error) {
    client.disconnect()
    throw new RedisUnreachableError(address, port.scrub(error))
  }
  return port
}

class IoredisPort implements RedisPort {
  private errorLogged = false
  private refusals = 0

  /** Commands: a `Cluster` takes the same calls as a `Redis`, routed by slot. */
  private readonly client: IORedis

  constructor (private readonly connection: IORedis | Cluster, readonly address: string, private readonly secrets: string[], log: ScaleLogger) {
    const client = connection as IORedis
    this.client = client
    // Without a listener an `error` event would crash the process; ioredis reconnects by itself,
    // so one line per outage is enough (`ready` re-arms it).
    client.on('error', (error: unknown) => {
      if (this.errorLogged) return
      this.errorLogged = true
      log.warn({ redis: address, err: this.scrub(error) }, 'scale-out: Redis connection lost, reconnecting')
    })
    client.on('ready', () => {
      if (this.errorLogged || this.refusals > 0) log.info({ redis: address, refused: this.refusals }, 'scale-out: Redis connection back (refused: operations refused meanwhile, requests answered 503)')
      this.errorLogged = false
      this.refusals = 0
    })
    this.log = log
  }

  private readonly log: ScaleLogger

  answered (): void {
    if (this.refusals === 0) return
    this.log.info({ redis: this.address, refused: this.refusals }, 'scale-out: Redis answers again (refused: operations refused meanwhile, requests answered 503)')
    this.refusals = 0
  }

  refused (reason: string): void {
    if (this.refusals++ === 0) this.log.warn({ redis: this.address, reason }, 'scale-out: Redis does not answer: what needs it is refused, requests with 503, until it is back (logged once)')
  }

  get ready (): boolean {
    return this.client.status === 'ready'
  }

  async script (name: ScriptName, keys: string[], args: Array<string | number>): Promise<unknown> {
    // Commands defined through `scripts` run as EVALSHA and fall back to EVAL on NOSCRIPT.
    const run = (this.client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[name]
    /* c8 ignore next: every ScriptName is defined in SCRIPTS */
    if (run === undefined) throw new Error(`unknown script ${name}`)
    return await run.call(this.client, ...keys, ...args)
  }

  async hgetall (key: string): Promise<Record<string, string>> {
    return await this.client.hgetall(key)
  }

  async get (key: string): Promise<string | null> {
    return await this.client.get(key)
  }

  async xadd (key: string, maxLen: number, fields: string[]): Promise<string> {
    return (await this.client.xadd(key, 'MAXLEN', '~', maxLen, '*', ...fields)) as string
  }

  async xrange (key: string, start: string, end: string, count?: number): Promise<StreamEntry[]> {
    const entries = count === undefined
      ? await this.client.xrange(key, start, end)
      : await this.client.xrange(key, start, end, 'COUNT', count)
    return entries as StreamEntry[]
  }

  async lastId (key: string): Promise<string> {
    const newest = await this.client.xrevrange(key, '+', '-', 'COUNT', 1)
    return newest[0]?.[0] ?? '0-0'
  }

  async xread (streams: Array<[string, string]>, blockMs: number, count: number): Promise<XReadReply> {
    const keys = streams.map(([key]) => key)
    const ids = streams.map(([, id]) => id)
    return await this.client.xread('COUNT', count, 'BLOCK', blockMs, 'STREAMS', ...keys, ...ids) as XReadReply
  }

  async del (keys: string[]): Promise<number> {
    return await this.client.del(...keys)
  }

  async pexpire (key: string, ms: number): Promise<void> {
    await this.client.pexpire(key, ms)
  }

  async identity (): Promise<string> {
    const servers = this.connection.isCluster ? (this.connection as Cluster).nodes('master') : [this.client]
    const ids = await Promise.all(servers.map(async (server) => /^run_id:(\w+)/m.exec(await server.info('server'))?.[1] ?? ''))
    return ids.sort().join(',')
  }

  on (event: 'ready' | 'close', listener: () => void): void {
    this.client.on(event, listener)
  }

  async waitReady (ms: number): Promise<boolean> {
    if (this.ready) return true
    return await new Promise((resolve) => {
      const done = (ok: boolean): void => {
        clearTimeout(timer)
        this.client.off('ready', onReady)
        resolve(ok)
      }
      const onReady = (): void => { done(true) }
      const timer = setTimeout(() => { done(false) }, ms)
      timer.unref()
      this.client.on('ready', onReady)
    })
  }

  async close (graceful = true): Promise<void> {
    // QUIT waits for the replies in flight; disconnect() if Redis is not there to answer it.
    if (graceful && this.ready) await withTimeout(this.client.quit(), 1000).catch(() => {})
    this.client.disconnect()
  }

  /** An error's message without the passwords, whatever ioredis put in it. */
  scrub (error: unknown): string {
    let text = error instanceof Error ? error.message : String(error)
    for (const secret of this.secrets) text = text.replaceAll(secret, '***')
    return text.replace(/(rediss?:\/\/)[^@/\s]*@/g, '$1***@')
  }
}

/**
 * Runs a command that must answer within `ms` (a request is waiting on it), or rejects with
 * {@link ScaleUnavailableError}. While the connection is down it is not even queued: commands
 * queued by requests that have given up would pile up in ioredis' queue for the whole outage.
 */
export async function bounded<T> (redis: RedisPort, ms: number, command: () => Promise<T>): Promise<T> {
  const started = Date.now()
  if (!redis.ready && !await redis.waitReady(ms)) {
    redis.refused('unreachable')
    throw new ScaleUnavailableError(`Redis at ${redis.address} is unreachable`)
  }
  try {
    const answer = await withTimeout(command(), Math.max(1, ms - (Date.now() - started)))
    redis.answered()
    return answer
  } catch (error) {
    if (error instanceof ScaleUnavailableError) redis.refused('no answer in time')
    throw error
  }
}

/** Rejects with {@link ScaleUnavailableError} when `promise` has not settled within `ms`. */
export async function withTimeout<T> (promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new ScaleUnavailableError(`Redis did not answer within ${ms} ms`)) }, ms)
    timer.unref()
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
