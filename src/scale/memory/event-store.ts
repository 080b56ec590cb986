import type { JsonRpcId } from '../../jsonrpc/messages.js'
import type { EventBytes } from '../event-bytes.js'
import type { EventReplay, SessionEventStore, StoredEvent } from '../ports.js'

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
 * the same id in another session is another event. With `bytes`, the sessions of one client and
 * all sessions are bounded too (see {@link EventBytes}): a session keeps at most what they leave it.
 */
export class MemoryEventStore implements SessionEventStore {
  private readonly maxEventsPerSession: number
  private readonly maxBytesPerSession: number
  private readonly bytes: EventBytes | undefined
  private readonly sessions = new Map<string, SessionEvents>()

  constructor (maxEventsPerSession: number, maxBytesPerSession = Infinity, bytes?: EventBytes) {
    this.maxEventsPerSession = maxEventsPerSession
    this.maxBytesPerSession = maxBytesPerSession
    this.bytes = bytes
  }

  append (sessionId: string, streamId: string, event: StoredEvent, client?: string): void {
    let held = this.sessions.get(sessionId)
    if (held === undefined) {
      held = { events: new Map(), bytes: 0 }
      this.sessions.set(sessionId, held)
    }
    const bytes = Buffer.byteLength(event.data, 'utf8')
    const bounds = client === undefined ? undefined : this.bytes
    const maxBytes = bounds === undefined || client === undefined ? this.maxBytesPerSession : bounds.room(sessionId, client, bytes, this.maxBytesPerSession)
    if (bytes > maxBytes) {
      // Not kept, and neither is anything before it: a client resuming from an earlier id must
      // learn that events are gone (it gets an error), not receive a replay with a silent hole.
      held.events.clear()
      held.bytes = 0
      bounds?.settle(sessionId, 0)
      return
    }
    held.bytes += bytes - (held.events.get(event.id)?.bytes ?? 0)
    held.events.set(event.id, { streamId, data: event.data, bytes, ...(event.requestId === undefined ? {} : { requestId: event.requestId }) })
    while (held.events.size > this.maxEventsPerSession || held.bytes > maxBytes) {
      const oldest = held.events.entries().next()
      /* c8 ignore next: over a bound means at least one event is held */
      if (oldest.done === true) break
      held.events.delete(oldest.value[0])
      held.bytes -= oldest.value[1].bytes
    }
    bounds?.settle(sessionId, held.bytes)
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
    this.bytes?.release(sessionId)
  }
}
