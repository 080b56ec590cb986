import type { TaskInputRequest } from './types.js'

/** Who a new task belongs to, and what it costs. */
export interface NewTask {
  /** Who may see it (`ownerKey`). */
  owner: string
  /** Who it counts against: the caller's client key (its identity, or its address without auth). */
  client: string
  /** Bytes of the request that started it, held by its work while it runs. */
  inputBytes: number
}

/** What a task's handler may do besides returning: wait for client input, say how it is going. */
export interface TaskRun {
  readonly taskId: string
  readonly signal: AbortSignal
  /** Puts the task in `input_required` until the client answers this request through `tasks/update`. */
  requestInput: (request: TaskInputRequest, signal?: AbortSignal) => Promise<Record<string, unknown>>
  /** Sets the task's `statusMessage`. */
  setStatusMessage: (message: string) => void
}

/** A question of a task to its client, waiting for the answer a `tasks/update` brings. */
export interface PendingInput {
  request: TaskInputRequest
  resolve: (value: Record<string, unknown>) => void
  reject: (error: unknown) => void
}

/** A task whose work runs in this process. */
export interface Running {
  readonly controller: AbortController
  readonly outstanding: Map<string, PendingInput>
  nextKey: number
  /** Store writes of one task, in order: an answer must not overtake the `input_required` it answers. */
  lane: Promise<unknown>
  /** A terminal status has been written: later writes (a handler finishing after its cancel) are dropped. */
  settled: boolean
  readonly expiry: NodeJS.Timeout
}

/** The questions a running task waits for, by key: its `inputRequests`. */
export function requestsOf (entry: Running): Record<string, TaskInputRequest> {
  const requests: Record<string, TaskInputRequest> = {}
  for (const [key, pending] of entry.outstanding) requests[key] = pending.request
  return requests
}
