import type { Redis as IORedis, RedisOptions } from 'ioredis'
import { RedisUnreachableError, ScaleUnavailableError } from '../../errors.js'
import type { ScaleLogger } from '../ports.js'
import { SCRIPTS, type ScriptName } from './scripts.js'

// The one place that knows ioredis. Everything else in src/scale/redis/ calls this port, so a
// change of client (ioredis' README calls its maintenance best-effort) stays inside this file.
// ioredis is an optional peer dependency: it is imported here, dynamically, only when `scaleOut`
// is configured, so an app without scale-out never loads it (nor needs it installed).

/** A Redis stream entry: its id and its fields as a flat `[name, value, ...]` list. */
export type StreamEntry = [id: string, fields: string[]]
/** What XREAD answers: per stream key, its new entries; null when the block timed out. */
export type XReadReply = Array<[key: string, entries: StreamEntry[]]> | null

/**
 * An ioredis client handed in by the application (e.g. `fastify.redis`): duplicated, never closed.
 * Typed without ioredis' own types, so that apps without scale-out compile without ioredis.
 */
export interface RedisClientLike {
  // Method syntax on purpose: its parameter is checked bivariantly, so ioredis' `Redis` fits.
  duplicate (override?: object): object
}

/** The commands the engine uses; each Lua script is one EVALSHA (EVAL after a Redis restart). */
export interface RedisPort {
  /** `host:port` of the server, for errors and logs; never a password. */
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
  del: (keys: string[]) => Promise<number>
  /** `INFO section`, parsed into its `name:value` lines. */
  info: (section: string) => Promise<Record<string, string>>
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
  /** `redis://` / `rediss://` URL, or the application's ioredis client. */
  redis: string | RedisClientLike
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
  const settings: RedisOptions = {
    connectionName: options.name,
    lazyConnect: true,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    // Reconnect fast: a restarted Redis is back within a second or two, and every instance waits on it.
    retryStrategy: (attempt) => Math.min(50 * attempt, 1000),
    connectTimeout: options.connectTimeoutMs,
    scripts: SCRIPTS
  }
  let client: IORedis
  let address: string
  let secret: string | undefined
  if (typeof options.redis === 'string') {
    const url = new URL(options.redis)
    address = `${url.hostname}:${url.port === '' ? '6379' : url.port}`
    secret = url.password === '' ? undefined : decodeURIComponent(url.password)
    const Redis = await loadIoredis()
    client = new Redis(options.redis, settings)
  } else {
    client = options.redis.duplicate(settings) as IORedis
    const { host, port } = client.options
    address = `${host ?? 'localhost'}:${port ?? 6379}`
    secret = client.options.password
  }
  const port = new IoredisPort(client, address, secret, options.log)
  try {
    await withTimeout(client.connect(), options.connectTimeoutMs)
    await client.ping()
  } catch (error) {
    client.disconnect()
    throw new RedisUnreachableError(address, port.scrub(error))
  }
  return port
}

async function loadIoredis (): Promise<typeof IORedis> {
  try {
    return (await import('ioredis')).Redis
  } catch {
    /* c8 ignore next 2: ioredis is a devDependency here; this is for apps that did not install it */
    throw new RedisUnreachableError('(no client)', 'the optional peer dependency "ioredis" is not installed: npm install ioredis')
  }
}

class IoredisPort implements RedisPort {
  private errorLogged = false
  private refusals = 0

  constructor (private readonly client: IORedis, readonly address: string, private readonly secret: string | undefined, log: ScaleLogger) {
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

  async info (section: string): Promise<Record<string, string>> {
    const text = await this.client.info(section)
    const fields: Record<string, string> = {}
    for (const line of text.split('\r\n')) {
      const colon = line.indexOf(':')
      if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1)
    }
    return fields
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

  /** An error's message without the password, whatever ioredis put in it. */
  scrub (error: unknown): string {
    let text = error instanceof Error ? error.message : String(error)
    if (this.secret !== undefined && this.secret !== '') text = text.replaceAll(this.secret, '***')
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
