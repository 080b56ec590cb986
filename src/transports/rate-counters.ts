import { createRequire } from 'node:module'
import type { RateCounter, RateHit } from '../protocol/authz/rate.js'
import { openClient } from '../scale/redis/topology.js'
import type { RedisTarget } from '../scale/redis/targets.js'
import { ScaleUnavailableError } from '../errors.js'

// Rate-limit budgets are counted by @fastify/rate-limit's own stores: its LocalStore (an LRU of
// fixed windows) in one process, its RedisStore (one Lua script: INCR, and PEXPIRE on the first hit
// of a window) when several instances share one budget. Only the stores fit: its hooks count HTTP
// requests before the body is read, while a budget here counts JSON-RPC requests (not
// notifications, not stream GETs), per definition for some, on stdio too, and a refusal is
// answered in the MCP error contract by the transports.

/** The callback interface of @fastify/rate-limit's stores (documented as its custom-store contract). */
interface RateLimitStore {
  incr: (key: string, done: (error: Error | null, result: { current: number, ttl: number } | null) => void, timeWindow: number, max: number) => void
}
type LocalStoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, cache?: number) => RateLimitStore
type RedisStoreClass = new (continueExceeding: boolean, exponentialBackoff: boolean, redis: object, prefix?: string) => RateLimitStore

// The stores are CommonJS files of the package, without types of their own.
const require = createRequire(import.meta.url)
const LocalStore = require('@fastify/rate-limit/store/LocalStore') as LocalStoreClass
const RedisStore = require('@fastify/rate-limit/store/RedisStore') as RedisStoreClass

/** Keys (clients, or client and definition) whose windows are kept in memory; the oldest go first. */
const LOCAL_KEYS = 10_000

function counterOf (store: RateLimitStore): RateCounter {
  return {
    hit: async (key, max, windowMs) => await new Promise<RateHit>((resolve, reject) => {
      store.incr(key, (error, result) => {
        if (error !== null || result === null) reject(error ?? new Error('the rate-limit store answered nothing'))
        else resolve({ count: result.current, resetMs: Math.max(0, result.ttl) })
      }, windowMs, max)
    })
  }
}

/** Budgets counted in this process. */
export function memoryRateCounter (): RateCounter {
  return counterOf(new LocalStore(false, false, LOCAL_KEYS))
}

/** What the Redis counter reads from the `scaleOut` option. */
export interface RedisCounterSettings {
  readonly redis: RedisTarget
  readonly namespace: string
  readonly redisTimeoutMs: number
}

/**
 * Budgets counted in Redis, shared by every instance of a scale-out deployment, on a connection of
 * their own, opened on the first count (a server that never limits never opens it). A count Redis
 * does not answer within `redisTimeoutMs` fails the request with 503 and Retry-After, as anything
 * else that needs Redis does: a budget that cannot be counted is not granted.
 */
export function redisRateCounter (settings: RedisCounterSettings): RateCounter & { close: () => Promise<void> } {
  let connecting: Promise<{ store: RateLimitStore, client: RedisConnection }> | undefined
  const connect = async (): Promise<{ store: RateLimitStore, client: RedisConnection }> => {
    const client = await openConnection(settings)
    return { client, store: new RedisStore(false, false, client, `${settings.namespace}:ratelimit:`) }
  }
  return {
    hit: async (key, max, windowMs) => {
      connecting ??= connect()
      const { store } = await connecting
      return await withTimeout(counterOf(store).hit(key, max, windowMs), settings.redisTimeoutMs)
    },
    close: async () => {
      if (connecting === undefined) return
      const { client } = await connecting.catch(() => ({ client: undefined }))
      client?.disconnect()
    }
  }
}

/** The part of an ioredis client the store and this file use. */
interface RedisConnection {
  defineCommand: (name: string, definition: { numberOfKeys: number, lua: string }) => void
  on: (event: 'error', listener: (error: unknown) => void) => void
  disconnect: () => void
}

async function openConnection (settings: RedisCounterSettings): Promise<RedisConnection> {
  // The way scale-out reaches any topology (a URL, Sentinel, Cluster, or the app's client duplicated):
  // lazily connected, reconnecting, queueing while it does; `hit` bounds every count by redisTimeoutMs.
  const { client } = await openClient(settings.redis, { name: `${settings.namespace}:ratelimit`, connectTimeoutMs: settings.redisTimeoutMs, scripts: {} })
  // ioredis reconnects by itself; without a listener an `error` event would end the process.
  client.on('error', () => {})
  return client as unknown as RedisConnection
}

async function withTimeout<T> (promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => { reject(new ScaleUnavailableError(`the rate-limit counter did not answer within ${ms} ms`)) }, ms)
    timer.unref()
  })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}
