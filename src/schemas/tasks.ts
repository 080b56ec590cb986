import { Type, type Static } from '@sinclair/typebox'
import { TASK_DEFAULTS, type TaskStore } from '../protocol/tasks/types.js'
import { MAX_TIMER_MS } from '../util/timers.js'
import { liveObject } from './engine/live.js'
import { Defaulted, Live, strict } from './engine/schema.js'

// Tasks: the `io.modelcontextprotocol/tasks` extension of MCP 2026-07-28.

const TasksOptionsSchema = Type.Object({
  /**
   * How long a task and its result are kept, from its creation, in milliseconds. A task still running
   * then is stopped (its signal aborts) and clients get "not found". Default 3600000 (1 hour).
   */
  ttlMs: Defaulted(Type.Integer({ minimum: 1, maximum: MAX_TIMER_MS, default: TASK_DEFAULTS.ttlMs })),
  /** Polling interval suggested to clients (`pollIntervalMs`), in milliseconds. Default 1000. */
  pollIntervalMs: Defaulted(Type.Integer({ minimum: 1, maximum: MAX_TIMER_MS, default: TASK_DEFAULTS.pollIntervalMs })),
  /** Tasks kept at once (running and finished, until their TTL), all clients together. Default 10000. */
  maxTasks: Defaulted(Type.Integer({ minimum: 1, default: TASK_DEFAULTS.maxTasks })),
  /**
   * Tasks kept at once for one client: its identity with `auth`, its remote address without
   * (counted as `maxSessionsPerClient` counts; anonymous callers still share task access by id, the
   * unguessable task id being the only secret). Further task calls get -32603 until some expire.
   * Default 100.
   */
  maxTasksPerPrincipal: Defaulted(Type.Integer({ minimum: 1, default: TASK_DEFAULTS.maxTasksPerPrincipal })),
  /**
   * Bytes the tasks kept at once may weigh, all clients together: each task its JSON as stored
   * (status, result or error, questions waiting for the client), plus the request that started it
   * while its work runs. A task call past it gets -32603; a task whose result would cross it fails
   * instead, with that error, and its work stops. Default 268435456 (256 MiB).
   */
  maxBytes: Defaulted(Type.Integer({ minimum: 1024, default: TASK_DEFAULTS.maxBytes })),
  /**
   * Bytes the tasks of one client (as `maxTasksPerPrincipal` counts) may weigh at once; past it, as
   * past `maxBytes`. Default 16777216 (16 MiB).
   */
  maxBytesPerPrincipal: Defaulted(Type.Integer({ minimum: 1024, default: TASK_DEFAULTS.maxBytesPerPrincipal }))
}, { ...strict, default: {} })
export type TasksOptions = Static<typeof TasksOptionsSchema>

/** The options of the server and the plugin about tasks. */
export const taskProperties = {
  /** Tasks (the `io.modelcontextprotocol/tasks` extension of MCP 2026-07-28): TTL and bounds. Every field has a default. */
  tasks: Defaulted(TasksOptionsSchema),
  /**
   * Where tasks are kept: an object implementing `TaskStore` (`create`, `get`, `update`, `close`).
   * Used as given (never copied or frozen); the server does not close it. Default: a bounded
   * in-memory store, closed with the server.
   */
  taskStore: Type.Optional(Live<TaskStore>())
}

/** `taskStore`: whatever is given is taken for a store, so a string is reported as missing every method. */
export const TASK_STORE = liveObject(['taskStore'], ['create', 'get', 'update', 'close'], 'a TaskStore', 'missing')
