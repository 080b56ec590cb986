import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import { failure } from '../../jsonrpc/messages.js'
import { ErrorCode } from '../../jsonrpc/errors.js'
import type { DirectMessage, ScaleEngine } from '../../scale/ports.js'
import type { SseStream } from '../http/sse-stream.js'
import type { LiveStream } from '../streamable/event-ids.js'
import type { EngineHealth } from './health.js'

/**
 * The answer to a request whose executor died before answering (and whose answer is not in the
 * event store). The request is not run again: it may have had effects, and only the client knows
 * whether to retry it.
 */
export const EXECUTOR_DIED = 'the server instance executing this request stopped before answering; the request was not run again'

type StreamEvent = Extract<DirectMessage, { type: 'stream-event' }>

function isResponse (json: string): boolean {
  try {
    const message = JSON.parse(json) as Record<string, unknown>
    return 'result' in message || 'error' in message
  } catch {
    return false
  }
}

/** A request stream of another instance that a client resumed here. */
interface Attachment {
  readonly stream: SseStream
  readonly session: string
  readonly owner: string
  /** Id of the last event written to the client: a takeover replays the store after it. */
  lastId: string
  /** The response went out: the stream ends, nothing else to do. */
  answered: boolean
  /** Replaying from the store (the executor is not alive): its messages are ignored meanwhile. */
  settling: boolean
  stopWatch: () => void
}

/**
 * Request streams resumed on another instance than their executor (Streamable HTTP). On the
 * instance the client resumed on, the attachment: the executor replays and forwards the stream's
 * events here, and if the executor dies, the shared event store takes over. On the executor, the
 * sink its events go to from then on.
 */
export class Attachments {
  private readonly engine: ScaleEngine
  private readonly self: string
  private readonly health: EngineHealth
  /** Request streams of other instances that a client resumed here: `{session} {stream}` → its response. */
  private readonly attached = new Map<string, Attachment>()

  constructor (engine: ScaleEngine, health: EngineHealth) {
    this.engine = engine
    this.self = engine.bus.self
    this.health = health
  }

  /**
   * A client resumed another instance's request stream here: the executor replays and forwards its
   * events. If it is not alive, the shared event store holds everything it wrote (each event is
   * recorded before it is written or forwarded), so its replay is the stream: with a response, that
   * is the end; without one, the request is answered -32603 once the executor is dead, whether it
   * was dead already or dies while the client waits here (see {@link Bus.watchDeath}).
   */
  async attach (sessionId: string, streamId: string, owner: string, lastEventId: string, res: ServerResponse, headers: OutgoingHttpHeaders, newStream: (res: ServerResponse) => SseStream): Promise<void> {
    const key = `${sessionId} ${streamId}`
    const stream = newStream(res)
    stream.open(headers)
    const attachment: Attachment = { stream, session: sessionId, owner, lastId: lastEventId, answered: false, settling: false, stopWatch: () => {} }
    this.end(key)
    this.attached.set(key, attachment)
    res.once('close', () => { if (this.attached.get(key) === attachment) this.drop(key) })
    // The cached view may predate a new instance: ask the registry before replaying. Unreadable
    // (Redis away): no verdict, the executor is asked as if alive.
    const alive = this.engine.bus.alive(owner) || await this.engine.bus.checkAlive(owner).catch(() => true)
    // Not alive: an answer already recorded ends it here, at once.
    if (!alive && await this.takeOver(key, attachment, false)) return
    if (this.attached.get(key) !== attachment) return
    attachment.stopWatch = this.engine.bus.watchDeath(owner, () => { this.health.background(this.takeOver(key, attachment, true)) })
    await this.engine.bus.send(owner, { type: 'attach', session: sessionId, stream: streamId, after: attachment.lastId, to: this.self })
  }

  /** An event the executor forwarded for a stream attached here. */
  onStreamEvent (message: StreamEvent): void {
    const key = `${message.session} ${message.stream}`
    const attachment = this.attached.get(key)
    // Taking over from the store, which holds all this (recorded before it was sent).
    if (attachment === undefined || attachment.settling) return
    if (message.gone === true) {
      // The executor does not know the session (it restarted, or never had it): the request is not running.
      this.health.background(this.takeOver(key, attachment, true))
    } else if (message.last) {
      this.end(key)
    } else if (message.json === '') {
      attachment.stream.prime(message.eventId, 1000)
      attachment.lastId = message.eventId
    } else {
      this.write(attachment, message.json, message.eventId)
    }
  }

  /** On the executor: where its events of a stream resumed on instance `to` are written. */
  sinkTo (to: string, sessionId: string, streamId: string): LiveStream {
    let ended = false
    const send = (eventId: string, json: string, last: boolean): void => {
      this.health.background(this.engine.bus.send(to, { type: 'stream-event', session: sessionId, stream: streamId, eventId, json, last }))
    }
    return {
      message: (json, id) => { if (!ended) send(id ?? '', json, false); return !ended },
      prime: (id) => { if (!ended) send(id, '', false); return !ended },
      end: () => {
        if (ended) return
        ended = true
        send('', '', true)
      }
    }
  }

  /** On the executor: it no longer holds the session, so nothing will come from here. */
  refuse (message: Extract<DirectMessage, { type: 'attach' }>): void {
    this.health.background(this.engine.bus.send(message.to, { type: 'stream-event', session: message.session, stream: message.stream, eventId: '', json: '', last: true, gone: true }))
  }

  /** Server shutdown: every client attached here is let go (it resumes elsewhere). */
  closeAll (): void {
    for (const key of [...this.attached.keys()]) this.end(key)
  }

  /**
   * Writes what the store holds after the client's last event. True when the attachment is over:
   * a response was among them, or the executor is `dead` (then the request is answered -32603, as
   * nothing else will answer it), or the client left. Nothing written twice: the executor's own
   * forwards are ignored meanwhile, and they were recorded before they were sent.
   */
  private async takeOver (key: string, attachment: Attachment, dead: boolean): Promise<boolean> {
    if (attachment.settling || this.attached.get(key) !== attachment) return true
    attachment.settling = true
    let replay
    try {
      replay = await this.engine.events.replayAfter(attachment.session, attachment.lastId)
    } catch (error) {
      // The store cannot be read: end the stream, the client resumes again (its outcome is unknown, never refused).
      this.health.failed(error)
      this.end(key)
      return true
    }
    if (this.attached.get(key) !== attachment) return true
    for (const event of replay?.events ?? []) this.write(attachment, event.data, event.id)
    if (attachment.answered || !dead) {
      attachment.settling = false
      if (attachment.answered) this.end(key)
      return attachment.answered
    }
    // Without the request's id (its priming event evicted, the events deleted) nothing can be answered.
    if (replay?.requestId !== undefined) attachment.stream.message(JSON.stringify(failure(replay.requestId, ErrorCode.InternalError, EXECUTOR_DIED)))
    this.end(key)
    return true
  }

  private write (attachment: Attachment, json: string, eventId: string): void {
    attachment.stream.message(json, eventId === '' ? undefined : eventId)
    if (eventId !== '') attachment.lastId = eventId
    if (isResponse(json)) attachment.answered = true
  }

  /** Ends the client's stream of an attachment and forgets it. */
  private end (key: string): void {
    this.drop(key)?.end()
  }

  private drop (key: string): SseStream | undefined {
    const attachment = this.attached.get(key)
    if (attachment === undefined) return undefined
    this.attached.delete(key)
    attachment.stopWatch()
    return attachment.stream
  }
}
