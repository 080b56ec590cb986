import type { JsonRpcId } from '../../jsonrpc/messages.js'

/**
 * Resumability for Streamable HTTP: every event written on a session's event
 * streams is recorded here, so a client whose stream dropped (or that the
 * server closed mid-call) can reconnect with `Last-Event-ID` and receive what
 * it missed. The transport makes up the event ids; the store treats them as
 * opaque strings. Methods may answer synchronously or with a promise, so a
 * shared backend (Redis, a database) can sit behind the same interface.
 */
export interface StoredEvent {
  /** The SSE `id` the event was (or would have been) written with. */
  readonly id: string
  /** The serialized JSON-RPC message; empty for a priming event (an id and no message). */
  readonly data: string
  /**
   * The id of the request the stream answers, on a request stream's priming event: another
   * instance can then answer that request with an error if the instance executing it dies.
   */
  readonly requestId?: JsonRpcId
}

export interface EventReplay {
  /** The stream the last event id belongs to. */
  readonly streamId: string
  /** Events of that stream recorded after the last event id, oldest first. */
  readonly events: readonly StoredEvent[]
  /** The request the stream answers, when its priming event recorded it (and was not evicted). */
  readonly requestId?: JsonRpcId
}

export interface EventStore {
  /** Records one event of `streamId`. Events arrive in the order they were written. */
  append: (sessionId: string, streamId: string, event: StoredEvent) => void | Promise<void>
  /**
   * The events after `lastEventId` on its stream; undefined when the id is
   * unknown to the session (never written, evicted, or the session's events were deleted).
   */
  replayAfter: (sessionId: string, lastEventId: string) => EventReplay | undefined | Promise<EventReplay | undefined>
  /** Forgets a session's events (the session ended). */
  deleteSession: (sessionId: string) => void | Promise<void>
}

interface Entry {
  streamId: string
  data: string
  bytes: number
  requestId?: JsonRpcId
}

interface SessionEvents {
  events: Map<string, Entry>
  bytes: number
}

/**
 * The default store: in memory, per session at most `maxEventsPerSession`
 * events and `maxBytesPerSession` bytes of event data (UTF-8), oldest evicted
 * first. A `Map` keeps insertion order, so eviction and lookup by id are both
 * O(1); a replay walks the session's events once. Events of one session only:
 * the same id in another session is another event.
 */
export class MemoryEventStore implements EventStore {
  private readonly maxEventsPerSession: number
  private readonly maxBytesPerSession: number
  private readonly sessions = new Map<string, SessionEvents>()

  constructor (maxEventsPerSession: number, maxBytesPerSession = Infinity) {
    this.maxEventsPerSession = maxEventsPerSession
    this.maxBytesPerSession = maxBytesPerSession
  }

  append (sessionId: string, streamId: string, event: StoredEvent): void {
    let held = this.sessions.get(sessionId)
    if (held === undefined) {
      held = { events: new Map(), bytes: 0 }
      this.sessions.set(sessionId, held)
    }
    const bytes = Buffer.byteLength(event.data, 'utf8')
    if (bytes > this.maxBytesPerSession) {
      // Not kept, and neither is anything before it: a client resuming from an earlier id must
      // learn that events are gone (it gets an error), not receive a replay with a silent hole.
      held.events.clear()
      held.bytes = 0
      return
    }
    held.bytes += bytes - (held.events.get(event.id)?.bytes ?? 0)
    held.events.set(event.id, { streamId, data: event.data, bytes, ...(event.requestId === undefined ? {} : { requestId: event.requestId }) })
    while (held.events.size > this.maxEventsPerSession || held.bytes > this.maxBytesPerSession) {
      const oldest = held.events.entries().next()
      /* c8 ignore next: over a bound means at least one event is held */
      if (oldest.done === true) break
      held.events.delete(oldest.value[0])
      held.bytes -= oldest.value[1].bytes
    }
  }

  replayAfter (sessionId: string, lastEventId: string): EventReplay | undefined {
    const events = this.sessions.get(sessionId)?.events
    const last = events?.get(lastEventId)
    if (events === undefined || last === undefined) return undefined
    const after: StoredEvent[] = []
    let found = false
    let requestId: JsonRpcId | undefined
    for (const [id, entry] of events) {
      if (entry.streamId === last.streamId && entry.requestId !== undefined) requestId = entry.requestId
      if (found) {
        // Priming events carry no message: nothing to deliver again.
        if (entry.streamId === last.streamId && entry.data !== '') after.push({ id, data: entry.data })
      } else if (id === lastEventId) {
        found = true
      }
    }
    return { streamId: last.streamId, events: after, ...(requestId === undefined ? {} : { requestId }) }
  }

  deleteSession (sessionId: string): void {
    this.sessions.delete(sessionId)
  }

  /** Sessions with recorded events (for tests and metrics). */
  get sessionCount (): number {
    return this.sessions.size
  }

  /** Bytes of event data held for a session (for tests and metrics). */
  bytesOf (sessionId: string): number {
    return this.sessions.get(sessionId)?.bytes ?? 0
  }
}
