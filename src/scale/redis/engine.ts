import { randomBytes } from 'node:crypto'
import type { TaskStore } from '../../protocol/tasks/types.js'
import { EventBytes } from '../event-bytes.js'
import { storedLifetimeMs } from '../lifetime.js'
import type { ScaleEngine, ScaleLogger } from '../ports.js'
import { RedisBus } from './bus/bus.js'
import { connectRedis, type RedisPort, type RedisTarget } from './client.js'
import { RedisEventStore } from './event-store.js'
import { keysOf } from './keys.js'
import { isClusterConfig } from './topology.js'
import { RedisSessionStore } from './session-store.js'
import { RedisTaskStore } from './task-store.js'

/** The `scaleOut` option as the engine reads it, defaults filled (schemas/scale.ts documents each). */
export interface RedisEngineSettings {
  readonly redis: RedisTarget
  readonly namespace: string
  /** Bus shards; unset: 3 on a Cluster (one per primary of a 3-primary cluster), 1 otherwise. */
  readonly shards?: number | undefined
  readonly instanceId?: string | undefined
  readonly heartbeatMs: number
  readonly redisTimeoutMs: number
  readonly outboxLimit: number
  readonly broadcastHistory: number
  readonly inboxBytes: number
}

/** What the engine needs from the resolved options: `scaleOut` and the bounds of a session's events. */
export interface ScaleEngineOptions {
  scaleOut: RedisEngineSettings
  /** Events kept per session and per log (`eventStoreSize`). */
  eventStoreSize: number
  /** Bytes of events kept per session and per log (`eventStoreBytes`). */
  eventStoreBytes: number
  /** Bytes of request-stream events kept for the sessions of one client, as one instance counts them (`eventStoreBytesPerClient`); unset: unbounded. */
  eventStoreBytesPerClient?: number | undefined
  /** Bytes of request-stream events kept for all sessions, as one instance counts them (`eventStoreBytesTotal`); unset: unbounded. */
  eventStoreBytesTotal?: number | undefined
  /** A session's lifetime without activity (`idleTimeoutMs`); 0 = no idle timeout (its keys still expire a day after its last use). */
  idleTimeoutMs: number
}

/** The Redis engine of one instance: the ports the transports use, plus the task store. */
export interface RedisScaleEngine extends ScaleEngine {
  readonly tasks: TaskStore
  /** `host:port` of Redis, every seed's on a Cluster or Sentinel (never a password). */
  readonly address: string
  /**
   * Called after Redis came back empty (a new `run_id`: restarted without persistence, or failed
   * over to a replica that lost writes): each instance re-creates the records and claims of the
   * sessions it holds.
   */
  onRedisRestart: (handler: () => void) => void
  onLimitRefusal: (handler: (limit: string) => void) => void
  close: () => Promise<void>
}

/** Bus shards when `scaleOut.shards` is unset: one per primary of a 3-primary Cluster; one on a single server. */
export const CLUSTER_SHARDS = 3

/**
 * Connects to Redis (connections for commands, and one per bus shard for its blocking XREAD) and
 * builds the engine. Rejects with `RedisUnreachableError` (`FST_MCP_REDIS_UNREACHABLE`, naming `host:port`)
 * when Redis does not answer within `redisTimeoutMs`, so `start()` / `ready()` fail instead of
 * serving sessions nobody else can see.
 */
export async function createScaleEngine (options: ScaleEngineOptions, log: ScaleLogger): Promise<RedisScaleEngine> {
  const { scaleOut } = options
  const self = scaleOut.instanceId ?? randomBytes(6).toString('hex')
  const connect = async (role: string): Promise<RedisPort> => await connectRedis({
    redis: scaleOut.redis, name: `${scaleOut.namespace}:${self}:${role}`, connectTimeoutMs: scaleOut.redisTimeoutMs, log
  })
  const cluster = isClusterConfig(scaleOut.redis) || (scaleOut.redis as { isCluster?: unknown }).isCluster === true
  const shards = scaleOut.shards ?? (cluster ? CLUSTER_SHARDS : 1)
  const cmd = await connect('cmd')
  const readers: RedisPort[] = []
  try {
    for (let shard = 0; shard < shards; shard++) readers.push(await connect(shard === 0 ? 'bus' : `bus${shard}`))
  } catch (error) {
    await Promise.all([cmd, ...readers].map(async (connection) => { await connection.close() }))
    throw error
  }
  const keys = keysOf(scaleOut.namespace, shards)
  const timeoutMs = scaleOut.redisTimeoutMs
  // The logs expire like the record (touch extends both): with `idleTimeoutMs: 0` too, or a log
  // created after the last touch would outlive its session forever.
  const logs = { maxEvents: options.eventStoreSize, maxBytes: options.eventStoreBytes, ttlMs: storedLifetimeMs(options.idleTimeoutMs) }
  // Each write refused past a bound, for telemetry (the node listens).
  const refusalHandlers: Array<(limit: string) => void> = []
  const refused = (limit: string): void => { for (const handler of refusalHandlers) handler(limit) }
  const bus = new RedisBus(cmd, readers, keys, {
    self, heartbeatMs: scaleOut.heartbeatMs, outboxLimit: scaleOut.outboxLimit, broadcastHistory: scaleOut.broadcastHistory, inboxBytes: scaleOut.inboxBytes, timeoutMs, ...logs
  }, log, refused)
  const restartHandlers: Array<() => void> = []
  let runId: string | undefined
  try {
    runId = await cmd.identity()
    await bus.start()
  } catch (error) {
    await Promise.all([bus.close(), cmd.close()])
    throw error
  }
  // After a reconnect: the same run_id means Redis kept everything; another one means it did not
  // (restarted empty, or failed over: a replica may lack the last writes acknowledged).
  // Deferred a turn, behind the commands ioredis re-sends after 'ready' (they are older). A store
  // miss waits for this check (`restartedRecently`), so that it is never taken for a gone session
  // while the instances have yet to re-create what they hold.
  let checked: Promise<void> = Promise.resolve()
  let restartedAt = -Infinity
  // Every live instance reconnects and re-creates its sessions well within this, or counts dead.
  const graceMs = scaleOut.heartbeatMs * 3
  cmd.on('ready', () => {
    checked = new Promise((resolve) => {
      setImmediate(() => {
        cmd.identity().then((identity) => {
          if (identity === runId) {
            bus.reconnected()
            return
          }
          runId = identity
          restartedAt = Date.now()
          log.warn({ redis: cmd.address }, 'scale-out: Redis restarted empty or failed over (it may lack the last writes); re-creating the sessions held here')
          bus.restarted()
          for (const handler of restartHandlers) handler()
        }, () => {}).finally(resolve)
      })
    })
  })
  let closing: Promise<void> | undefined
  return {
    address: cmd.address,
    sessions: new RedisSessionStore(cmd, keys, timeoutMs, (id, instance, tail, previous) => { bus.claimed(id, instance, tail, previous) }, refused),
    bus,
    events: new RedisEventStore(cmd, keys, { ...logs, timeoutMs, bytes: eventBytesOf(options, refused) }),
    tasks: new RedisTaskStore(cmd, keys, timeoutMs),
    onRedisRestart: (handler) => { restartHandlers.push(handler) },
    onLimitRefusal: (handler) => { refusalHandlers.push(handler) },
    restartedRecently: async () => {
      await checked
      return Date.now() - restartedAt < graceMs
    },
    close: async () => {
      closing ??= (async () => {
        await bus.close()
        await cmd.close()
      })()
      await closing
    }
  }
}

/** The bounds of kept events per client and overall, when the options set either. */
function eventBytesOf (options: ScaleEngineOptions, refused: (limit: string) => void): EventBytes | undefined {
  const { eventStoreBytesPerClient: perClient, eventStoreBytesTotal: total } = options
  if (perClient === undefined && total === undefined) return undefined
  return new EventBytes(total ?? Infinity, perClient ?? Infinity, refused)
}
