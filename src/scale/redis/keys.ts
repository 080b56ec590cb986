import { slotOf, SLOTS } from './slots.js'

// The key layout, all under the configured namespace. Every key carries a hash tag (the part in
// braces), the only part Redis Cluster hashes to place the key: the keys a script or a multi-key
// command touches share a tag, so they share a slot, which Cluster requires. A single Redis server
// ignores the braces. A session's keys are listed here and nowhere else, so that deleting a session
// provably deletes all of them.
//
// Three placements:
// - a session's keys are tagged with its id, so sessions spread over every slot (and so every
//   Cluster primary), and a session's scripts run on one primary;
// - the bus is split into `shards`: shard k holds a control stream, a fan-out stream and one inbox
//   per instance, tagged alike, so that one XREAD reads an instance's three streams of a shard. The
//   shard tags are picked so that shard k's slot lies in the k-th equal part of the slot space: on a
//   Cluster whose primaries hold equal ranges of slots (what `redis-cli --cluster create` and
//   `rebalance` make), n shards over n primaries put one on each;
// - tasks share one tag: creating one checks the global and per-owner counts atomically.

export interface Keys {
  /** Number of bus shards (`scaleOut.shards`). */
  readonly shards: number
  /** Hash: the record's fields (`r.<name>`, JSON each), `gw` the holder of stream 0, `l0` the newest stream-0 position. */
  session: (sid: string) => string
  /** Stream: the session's stream-0 log (`d`), positions assigned by Redis. */
  log0: (sid: string) => string
  /** Stream: the events of the session's request streams (`d`, `i` event id, `s` stream). */
  requestLog: (sid: string) => string
  /** Hash: bytes held in the two logs (fields `0` and `r`), for their byte bound. */
  logBytes: (sid: string) => string
  /** Every key of a session, for touch and delete. */
  ofSession: (sid: string) => [string, string, string, string]
  /** The shard a session's bus messages travel on (its inbox entries, its control messages). */
  shardOf: (sid: string) => number
  /** Stream: one instance's inbox on shard `shard`. */
  inbox: (instance: string, shard: number) => string
  /** Stream: control messages for every instance (cancel, end, changed), shard `shard`. */
  control: (shard: number) => string
  /** Stream: fan-out messages with history (broadcasts, resources/updated, list_changed), shard `shard`. */
  fanout: (shard: number) => string
  /** Zset: instance -> heartbeat expiry (ms, Redis clock). On shard 0. */
  live: string
  /** Hash: instance -> its home shard, where it writes its fan-out (with more than one shard). On shard 0. */
  homes: string
  /** String: one task (JSON). */
  task: (taskId: string) => string
  /** Zset: every task id -> expiry, for `maxTasks`. */
  tasks: string
  /** Zset: one client's task ids -> expiry, for `maxTasksPerPrincipal`. */
  ownerTasks: (clientDigest: string) => string
  /** Hash: every task's weight in bytes by id, their sum in `#`, for `tasks.maxBytes`. */
  taskBytes: string
  /** Hash: one client's task weights and their sum, for `tasks.maxBytesPerPrincipal`. */
  ownerTaskBytes: (clientDigest: string) => string
}

/** The bus shards allowed (`scaleOut.shards`); each costs every instance one blocking connection. */
export const MAX_SHARDS = 64

export function keysOf (namespace: string, shards = 1): Keys {
  const ns = namespace
  const tags = shardTags(shards)
  const tag = (shard: number): string => tags[shard] ?? tags[0] as string
  const session = (sid: string): string => `${ns}:s:{${sid}}`
  const log0 = (sid: string): string => `${ns}:e:{${sid}}:0`
  const requestLog = (sid: string): string => `${ns}:e:{${sid}}:r`
  const logBytes = (sid: string): string => `${ns}:e:{${sid}}:b`
  return {
    shards,
    session,
    log0,
    requestLog,
    logBytes,
    ofSession: (sid) => [session(sid), log0(sid), requestLog(sid), logBytes(sid)],
    shardOf: (sid) => shards === 1 ? 0 : slotOf(sid) % shards,
    inbox: (instance, shard) => `${ns}:in:{${tag(shard)}}:${instance}`,
    control: (shard) => `${ns}:ctl:{${tag(shard)}}`,
    fanout: (shard) => `${ns}:bc:{${tag(shard)}}`,
    live: `${ns}:live:{${tag(0)}}`,
    homes: `${ns}:home:{${tag(0)}}`,
    task: (taskId) => `${ns}:t:{tasks}:${taskId}`,
    tasks: `${ns}:tasks:{tasks}`,
    ownerTasks: (digest) => `${ns}:to:{tasks}:${digest}`,
    taskBytes: `${ns}:tb:{tasks}`,
    ownerTaskBytes: (digest) => `${ns}:tob:{tasks}:${digest}`
  }
}

/**
 * The hash tag of each shard: `k`, or `k.n` with the smallest n that puts it in the k-th of
 * `shards` equal parts of the slot space. The same on every instance (a pure function of the count).
 */
function shardTags (shards: number): string[] {
  const tags: string[] = []
  for (let k = 0; k < shards; k++) {
    const low = Math.floor(k * SLOTS / shards)
    const high = Math.floor((k + 1) * SLOTS / shards)
    const fits = (tag: string): boolean => {
      const slot = slotOf(tag)
      return slot >= low && slot < high
    }
    let tag = String(k)
    for (let n = 1; !fits(tag); n++) tag = `${k}.${n}`
    tags.push(tag)
  }
  return tags
}
