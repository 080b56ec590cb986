import type { Cluster, ClusterOptions, Redis as IORedis, RedisOptions } from 'ioredis'
import { RedisUnreachableError } from '../../errors.js'
import { isRecord } from '../../util/is-record.js'
import type { ClusterConfig, RedisNode, RedisTarget, SentinelConfig } from './targets.js'

// What `scaleOut.redis` names, turned into an ioredis client of the engine's own: one server (a
// URL), a primary watched by Sentinel, a Redis Cluster, or the application's client of any of the
// three (duplicated). Also what errors and logs call it (every seed `host:port`, never a password)
// and the secrets to scrub from ioredis' messages.

export type { ClusterConfig, RedisClientLike, RedisNode, RedisTarget, SentinelConfig } from './targets.js'

/** How the engine's connections behave, whatever the topology (see client.ts). */
export interface ConnectionSettings {
  readonly name: string
  readonly connectTimeoutMs: number
  readonly scripts: NonNullable<RedisOptions['scripts']>
}

export interface Opened {
  readonly client: IORedis | Cluster
  /** Every seed `host:port`, and the topology; never a password. */
  readonly address: string
  /** Passwords ioredis might echo in an error message. */
  readonly secrets: string[]
}

/** Reconnect fast: a restarted or failed-over Redis is back within seconds, and every instance waits on it. */
const retry = (attempt: number): number => Math.min(50 * attempt, 1000)

/** A client is told by its `duplicate()` (an ioredis `Redis` has a `cluster` method, too). */
function isClient (value: unknown): boolean {
  return isRecord(value) && typeof value.duplicate === 'function'
}

export function isClusterConfig (value: unknown): value is ClusterConfig {
  return isRecord(value) && !isClient(value) && 'cluster' in value
}

export function isSentinelConfig (value: unknown): value is SentinelConfig {
  return isRecord(value) && !isClient(value) && 'sentinels' in value
}

/** Opens (lazily: nothing is connected yet) a client of the engine's own for `target`. */
export async function openClient (target: RedisTarget, settings: ConnectionSettings): Promise<Opened> {
  const node = nodeSettings(settings)
  if (typeof target === 'string') {
    const url = new URL(target)
    const { Redis } = await loadIoredis()
    return { client: new Redis(target, node), address: `${url.hostname}:${url.port === '' ? '6379' : url.port}`, secrets: secretsOf([decodeURIComponent(url.password)]) }
  }
  if (isClusterConfig(target)) {
    const { Cluster } = await loadIoredis()
    const { cluster: seeds, redisOptions, ...rest } = target
    const client = new Cluster(seeds, clusterSettings(rest, redisOptions, settings))
    return { client, address: clusterAddress(seeds), secrets: secretsOf([redisOptions?.password]) }
  }
  if (isSentinelConfig(target)) {
    const { Redis } = await loadIoredis()
    const client = new Redis({ ...target, ...node } as RedisOptions)
    return { client, address: sentinelAddress(target.sentinels, target.name), secrets: secretsOf([target.password, target.sentinelPassword]) }
  }
  const given = target as IORedis | Cluster
  if (given.isCluster) {
    const cluster = given as Cluster
    const options = cluster.options
    const client = cluster.duplicate(undefined, clusterSettings({}, options.redisOptions, settings))
    // The seeds it was built with (a field ioredis does not type as public), else the primaries it knows.
    const seeds = (cluster as unknown as { startupNodes?: unknown }).startupNodes
    const nodes = Array.isArray(seeds) ? seeds as Array<RedisNode | string> : cluster.nodes('master').map((node) => ({ host: node.options.host ?? 'localhost', port: node.options.port }))
    return { client, address: clusterAddress(nodes), secrets: secretsOf([options.redisOptions?.password]) }
  }
  const redis = given as IORedis
  const client = redis.duplicate(node)
  const { host, port, sentinels, name, password, sentinelPassword } = redis.options
  const address = sentinels === null || sentinels === undefined || sentinels.length === 0
    ? `${host ?? 'localhost'}:${port ?? 6379}`
    : sentinelAddress(sentinels, name ?? '')
  return { client, address, secrets: secretsOf([password, sentinelPassword]) }
}

/** What the engine sets on every connection (a node of a Cluster included). */
function nodeSettings (settings: ConnectionSettings): RedisOptions {
  return {
    connectionName: settings.name,
    lazyConnect: true,
    maxRetriesPerRequest: null,
    enableOfflineQueue: true,
    retryStrategy: retry,
    connectTimeout: settings.connectTimeoutMs,
    scripts: settings.scripts
  }
}

function clusterSettings (rest: Record<string, unknown>, redisOptions: Record<string, unknown> | undefined, settings: ConnectionSettings): ClusterOptions {
  const { retryStrategy: _retry, enableOfflineQueue: _queue, scripts, lazyConnect: _lazy, ...node } = nodeSettings(settings)
  return {
    ...rest,
    lazyConnect: true,
    enableOfflineQueue: true,
    clusterRetryStrategy: retry,
    // A resharding under load answers MOVED and ASK: follow them, and TRYAGAIN for a script whose
    // keys are mid-migration, rather than failing the command.
    maxRedirections: 64,
    retryDelayOnTryAgain: 20,
    retryDelayOnClusterDown: 100,
    slotsRefreshTimeout: settings.connectTimeoutMs,
    scripts,
    redisOptions: { ...redisOptions, ...node }
  }
}

function clusterAddress (seeds: ReadonlyArray<RedisNode | string | number>): string {
  return `${seeds.map((seed) => typeof seed === 'object' ? `${seed.host}:${seed.port ?? 6379}` : String(seed)).join(', ')} (Cluster)`
}

function sentinelAddress (sentinels: ReadonlyArray<Partial<RedisNode>>, name: string): string {
  return `${sentinels.map((s) => `${s.host ?? 'localhost'}:${s.port ?? 26379}`).join(', ')} (Sentinel, primary "${name}")`
}

function secretsOf (values: unknown[]): string[] {
  return values.filter((value): value is string => typeof value === 'string' && value !== '')
}

async function loadIoredis (): Promise<{ Redis: typeof import('ioredis').Redis, Cluster: typeof import('ioredis').Cluster }> {
  try {
    const { Redis, Cluster } = await import('ioredis')
    return { Redis, Cluster }
  } catch {
    /* c8 ignore next 2: ioredis is a devDependency here; this is for apps that did not install it */
    throw new RedisUnreachableError('(no client)', 'the optional peer dependency "ioredis" is not installed: npm install ioredis')
  }
}
