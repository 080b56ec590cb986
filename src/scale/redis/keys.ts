// The key layout (spec scale-out.md §4), all under the configured namespace. A session's keys
// are listed here and nowhere else, so that deleting a session provably deletes all of them.

export interface Keys {
  /** Hash: the record's fields (`r.<name>`, JSON each) and `gw`, the holder of stream 0. */
  session: (sid: string) => string
  /** Stream: the session's stream-0 log (`d`), positions assigned by Redis. */
  log0: (sid: string) => string
  /** Stream: the events of the session's request streams (`d`, `i` event id, `s` stream). */
  requestLog: (sid: string) => string
  /** Hash: bytes held in the two logs (fields `0` and `r`), for their byte bound. */
  logBytes: (sid: string) => string
  /** Every key of a session, for touch and delete. */
  ofSession: (sid: string) => [string, string, string, string]
  /** Stream: one instance's inbox. */
  inbox: (instance: string) => string
  /** Prefix of the inboxes (the deliver0 script appends the gateway's id). */
  inboxPrefix: string
  /** Stream: control messages for every instance (cancel, end, changed). */
  control: string
  /** Stream: fan-out messages with history (broadcasts, resources/updated, list_changed). */
  fanout: string
  /** Zset: instance -> heartbeat expiry (ms, Redis clock). */
  live: string
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

export function keysOf (namespace: string): Keys {
  const ns = namespace
  const session = (sid: string): string => `${ns}:s:${sid}`
  const log0 = (sid: string): string => `${ns}:e:${sid}:0`
  const requestLog = (sid: string): string => `${ns}:e:${sid}:r`
  const logBytes = (sid: string): string => `${ns}:e:${sid}:b`
  return {
    session,
    log0,
    requestLog,
    logBytes,
    ofSession: (sid) => [session(sid), log0(sid), requestLog(sid), logBytes(sid)],
    inbox: (instance) => `${ns}:in:${instance}`,
    inboxPrefix: `${ns}:in:`,
    control: `${ns}:ctl`,
    fanout: `${ns}:bc`,
    live: `${ns}:live`,
    task: (taskId) => `${ns}:t:${taskId}`,
    tasks: `${ns}:tasks`,
    ownerTasks: (digest) => `${ns}:to:${digest}`,
    taskBytes: `${ns}:tb`,
    ownerTaskBytes: (digest) => `${ns}:tob:${digest}`
  }
}
