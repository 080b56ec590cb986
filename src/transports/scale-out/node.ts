import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyBaseLogger } from 'fastify'
import { ScaleUnavailableError, UnknownSessionError } from '../../errors.js'
import { changeEventOf } from '../../protocol/changes.js'
import type { McpCore } from '../../protocol/core.js'
import { failure, type ClassifiedMessage, type JsonRpcId, type JsonRpcNotification } from '../../jsonrpc/messages.js'
import { ErrorCode } from '../../jsonrpc/errors.js'
import type { Session } from '../../protocol/session.js'
import type { ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleEngine, SessionRecord, StoredSession } from '../../scale/ports.js'
import { storedLifetimeMs } from '../../scale/lifetime.js'
import { ListChangeAnnouncer } from './list-announcer.js'
import { SseStream } from '../http/sse-stream.js'
import { INSTANCE_ID_SOURCE } from '../../util/ids.js'
import type { LiveStream } from '../streamable/event-ids.js'
import { cancelOf } from '../../jsonrpc/cancel.js'

/** Cancels kept for requests not arrived yet, and for how long (ms). */
const EARLY_CANCELS = 1000
const EARLY_CANCEL_MS = 10_000

/**
 * The answer to a request whose executor died before answering (and whose answer is not in the
 * event store). The request is not run again: it may have had effects, and only the client knows
 * whether to retry it.
 */
export const EXECUTOR_DIED = 'the server instance executing this request stopped before answering; the request was not run again'

function isResponse (json: string): boolean {
  try {
    const message = JSON.parse(json) as Record<string, unknown>
    return 'result' in message || 'error' in message
  } catch {
    return false
  }
}

/** Server-request ids name their instance, so a reply landing anywhere finds the waiting one. */
const SERVER_REQUEST_ID = new RegExp(`^s\\.(${INSTANCE_ID_SOURCE})\\.\\d{1,15}$`)

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

/** What a transport registers for each session this instance holds a `Session` object of. */
export interface ScaledEntry {
  readonly session: Session
  readonly kind: SessionRecord['kind']
  /** True when closing the session here must not end it everywhere (an end received, eviction, shutdown). */
  localOnly: boolean
  /** Point-to-point messages for this session (replies, forwarded POSTs, stream-0 events, ...). */
  direct: (message: DirectMessage) => void
  /** A broadcast or resource update to write if this instance holds the session's stream 0. */
  fanout: (position: string, json: string, message: JsonRpcNotification) => void
  /** Whether this instance holds the session's stream 0 (and so must not evict it). */
  readonly holdsStream: boolean
  /** Epoch ms of the last TTL extension from here. */
  touchedAt: number
}

/** What a session record says about a live session, from its `Session`. */
export function recordOf (session: Session, kind: SessionRecord['kind']): SessionRecord {
  const principal = session.principal
  return {
    id: session.id,
    kind,
    ...(principal === undefined ? {} : { principal: { method: principal.method, kind: principal.kind, issuer: principal.issuer, subject: principal.subject } }),
    protocolVersion: session.protocolVersion ?? '',
    ...(session.clientInfo === undefined ? {} : { clientInfo: session.clientInfo }),
    clientCapabilities: session.clientCapabilities,
    ...(session.logLevel === undefined ? {} : { logLevel: session.logLevel }),
    subscriptions: [...session.subscriptions]
  }
}

/**
 * One instance's end of the scale-out engine, shared by both HTTP transports: the bus handlers,
 * the sessions this instance holds, TTL extension and local eviction, remote resumes held here,
 * and the change relay. Everything that crosses instances goes through `engine` (the ports).
 */
export class ScaleNode {
  readonly engine: ScaleEngine
  readonly self: string
  private readonly core: McpCore
  private readonly log: FastifyBaseLogger
  private readonly idleTimeoutMs: number
  private readonly local = new Map<string, ScaledEntry>()
  /** Request streams of other instances that a client resumed here: `{session} {stream}` → its response. */
  private readonly attachments = new Map<string, Attachment>()
  /** Records of sessions held elsewhere that this instance forwards to (legacy SSE POSTs). */
  private readonly remote = new Map<string, StoredSession>()
  /**
   * Cancels that arrived before their request (a round-robin balancer may deliver the cancel
   * first): `{session} {id}` → deadline. Checked when a request starts here; bounded, short-lived.
   */
  private readonly earlyCancels = new Map<string, { until: number, reason: string }>()
  /** Changes written from here per session, so that a slower refresh does not undo a newer local change. */
  private readonly edits = new WeakMap<Session, number>()
  private readonly lists: ListChangeAnnouncer
  private sweep: NodeJS.Timeout | undefined
  private closing = false
  /** Engine operations that failed since the engine last worked (the first is logged, then the count). */
  private failures = 0

  constructor (engine: ScaleEngine, core: McpCore, options: { idleTimeoutMs: number }, log: FastifyBaseLogger) {
    this.engine = engine
    this.self = engine.bus.self
    this.core = core
    this.log = log
    this.idleTimeoutMs = options.idleTimeoutMs
    engine.bus.onDirect((envelope) => { this.onDirect(envelope) })
    engine.bus.onControl((envelope) => { this.onControl(envelope) })
    engine.bus.onFanout((envelope) => { this.onFanout(envelope) })
    this.lists = new ListChangeAnnouncer(core.registry)
    core.relay = {
      broadcast: (json) => this.publish({ type: 'broadcast', json }, (entry) => entry.session.state === 'ready'),
      resourceUpdated: (uri, json) => this.publish({ type: 'resource-updated', uri, json }, (entry) => entry.session.subscriptions.has(uri)),
      listChanged: (list, digest, json) => {
        if (this.lists.publishing) this.guard(this.engine.bus.fanout({ type: 'list-changed', list, digest, json }))
      }
    }
    // Redis lost its data: the sessions held here are put back, or the next request on another
    // instance would find them gone (404), and stream-0 messages no holder (dropped).
    engine.onRedisRestart?.(() => { this.restoreAll() })
    if (this.idleTimeoutMs > 0) {
      this.sweep = setInterval(() => { this.sweepIdle() }, Math.min(Math.max(Math.floor(this.idleTimeoutMs / 2), 10), 30_000))
      this.sweep.unref()
    }
  }

  get ttlMs (): number {
    return storedLifetimeMs(this.idleTimeoutMs)
  }

  register (entry: ScaledEntry): void {
    this.local.set(entry.session.id, entry)
    entry.session.onClose(() => {
      if (this.local.get(entry.session.id) === entry) this.local.delete(entry.session.id)
      if (!entry.localOnly && !this.closing) this.guard(this.endEverywhere(entry.session.id, 'session ended'))
    })
  }

  /** The session was used here: its TTL is extended at most once per quarter of the idle timeout. */
  used (entry: ScaledEntry): void {
    const now = Date.now()
    if (now - entry.touchedAt < this.ttlMs / 4) return
    entry.touchedAt = now
    this.guard(this.engine.sessions.touch(entry.session.id, this.ttlMs).then(async (alive) => {
      if (!alive) await this.expired(entry)
    }, (error: unknown) => {
      // Not extended (Redis away): the next use tries again, or a record made short by
      // `initialize` would expire under a client that is back.
      entry.touchedAt = 0
      throw error
    }))
  }

  /**
   * The store no longer has a session held here: it idled out (ended everywhere), unless Redis
   * lost its data recently, in which case the record is put back.
   */
  private async expired (entry: ScaledEntry): Promise<void> {
    if (await this.engine.restartedRecently?.() === true) await this.restore(entry)
    else await this.endEverywhere(entry.session.id, 'idle timeout')
  }

  private async restore (entry: ScaledEntry): Promise<void> {
    await this.engine.sessions.restore(recordOf(entry.session, entry.kind), this.ttlMs, entry.holdsStream ? this.self : undefined)
  }

  /** After Redis came back empty: every instance puts back the sessions it holds (the first one wins). */
  private restoreAll (): void {
    const entries = [...this.local.values()]
    for (const entry of entries) this.guard(this.restore(entry))
    this.log.info({ sessions: entries.length }, 'scale-out: re-creating the records of the sessions held here after a Redis restart')
  }

  /**
   * The error for a session the store does not know: 404, except shortly after Redis lost its
   * data, when it may be a live session whose holders are still putting it back: 503, retry.
   */
  async unknownSession (): Promise<Error> {
    if (await this.engine.restartedRecently?.() === true) return new ScaleUnavailableError('Redis restarted; the sessions are being re-created')
    return new UnknownSessionError()
  }

  /** An engine operation failed where nobody waits for it (an event not recorded, a TTL not extended): counted, logged once. */
  failed (error: unknown): void {
    if (this.failures++ === 0) this.log.error({ err: error }, 'MCP scale-out engine failed (logged once until it works again)')
  }

  /** A session held here was used (legacy SSE: a POST to its owner). */
  usedHere (id: string): void {
    const entry = this.local.get(id)
    if (entry !== undefined) this.used(entry)
  }

  /** Forgets the session everywhere: record, logs, and (through `end`) every instance's copy. */
  async endEverywhere (id: string, reason: string): Promise<void> {
    await this.engine.sessions.delete(id)
    await this.engine.events.deleteSession(id)
    await this.engine.bus.control({ type: 'end', session: id, reason })
  }

  /**
   * The record of a session held by another instance, loaded once and kept until it ends (`end`
   * drops it): a legacy POST to a non-owner costs a bus write, not a store read.
   */
  async remoteSession (id: string): Promise<StoredSession | undefined> {
    const known = this.remote.get(id)
    if (known !== undefined) return known
    const stored = await this.engine.sessions.get(id)
    if (stored !== undefined) {
      // Bounded: a flood of POSTs naming other instances' sessions must not grow this without end.
      if (this.remote.size >= 10_000) this.remote.delete(this.remote.keys().next().value as string)
      this.remote.set(id, stored)
    }
    return stored
  }

  /** Hands a stream-0 message to the gateway; failures are logged, never thrown at the handler. */
  deliver0 (sessionId: string, json: string): void {
    this.guard(this.engine.bus.deliver0(sessionId, json))
  }

  /** The instance a server-request id names, when it is another one. */
  ownerOfReply (id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined
    const owner = SERVER_REQUEST_ID.exec(id)?.[1]
    return owner === this.self ? undefined : owner
  }

  /**
   * Before a request that changes the session (log level, subscriptions): the latest record, since a
   * change made elsewhere may not have reached this copy yet (the write after takes the whole set).
   */
  async refreshNow (session: Session): Promise<void> {
    await this.refresh(session)
  }

  /** Persists what a request changed in the session (log level, subscriptions) and tells the others. */
  async sync (session: Session): Promise<void> {
    this.edits.set(session, (this.edits.get(session) ?? 0) + 1)
    await this.engine.sessions.update(session.id, { logLevel: session.logLevel, subscriptions: [...session.subscriptions] })
    await this.engine.bus.control({ type: 'changed', session: session.id })
  }

  /**
   * A client resumed another instance's request stream here: the executor replays and forwards its
   * events. If it is not alive, the shared event store holds everything it wrote (each event is
   * recorded before it is written or forwarded), so its replay is the stream: with a response, that
   * is the end; without one, the request is answered -32603 once the executor is dead, whether it
   * was dead already or dies while the client waits here (see {@link Bus.watchDeath}).
   */
  async attachRemote (sessionId: string, streamId: string, owner: string, lastEventId: string, res: ServerResponse, headers: OutgoingHttpHeaders, newStream: (res: ServerResponse) => SseStream): Promise<void> {
    const key = `${sessionId} ${streamId}`
    const stream = newStream(res)
    stream.open(headers)
    const attachment: Attachment = { stream, session: sessionId, owner, lastId: lastEventId, answered: false, settling: false, stopWatch: () => {} }
    this.endAttachment(key)
    this.attachments.set(key, attachment)
    res.once('close', () => { if (this.attachments.get(key) === attachment) this.dropAttachment(key) })
    // The cached view may predate a new instance: ask the registry before replaying. Unreadable
    // (Redis away): no verdict, the executor is asked as if alive.
    const alive = this.engine.bus.alive(owner) || await this.engine.bus.checkAlive(owner).catch(() => true)
    // Not alive: an answer already recorded ends it here, at once.
    if (!alive && await this.takeOver(key, attachment, false)) return
    if (this.attachments.get(key) !== attachment) return
    attachment.stopWatch = this.engine.bus.watchDeath(owner, () => { this.guard(this.takeOver(key, attachment, true)) })
    await this.engine.bus.send(owner, { type: 'attach', session: sessionId, stream: streamId, after: attachment.lastId, to: this.self })
  }

  /**
   * Writes what the store holds after the client's last event. True when the attachment is over:
   * a response was among them, or the executor is `dead` (then the request is answered -32603, as
   * nothing else will answer it), or the client left. Nothing written twice: the executor's own
   * forwards are ignored meanwhile, and they were recorded before they were sent.
   */
  private async takeOver (key: string, attachment: Attachment, dead: boolean): Promise<boolean> {
    if (attachment.settling || this.attachments.get(key) !== attachment) return true
    attachment.settling = true
    let replay
    try {
      replay = await this.engine.events.replayAfter(attachment.session, attachment.lastId)
    } catch (error) {
      // The store cannot be read: end the stream, the client resumes again (its outcome is unknown, never refused).
      this.guard(Promise.reject(error))
      this.endAttachment(key)
      return true
    }
    if (this.attachments.get(key) !== attachment) return true
    for (const event of replay?.events ?? []) this.writeAttached(attachment, event.data, event.id)
    if (attachment.answered || !dead) {
      attachment.settling = false
      if (attachment.answered) this.endAttachment(key)
      return attachment.answered
    }
    // Without the request's id (its priming event evicted, the events deleted) nothing can be answered.
    if (replay?.requestId !== undefined) attachment.stream.message(JSON.stringify(failure(replay.requestId, ErrorCode.InternalError, EXECUTOR_DIED)))
    this.endAttachment(key)
    return true
  }

  private writeAttached (attachment: Attachment, json: string, eventId: string): void {
    attachment.stream.message(json, eventId === '' ? undefined : eventId)
    if (eventId !== '') attachment.lastId = eventId
    if (isResponse(json)) attachment.answered = true
  }

  /** Ends the client's stream of an attachment and forgets it. */
  private endAttachment (key: string): void {
    this.dropAttachment(key)?.end()
  }

  private dropAttachment (key: string): SseStream | undefined {
    const attachment = this.attachments.get(key)
    if (attachment === undefined) return undefined
    this.attachments.delete(key)
    attachment.stopWatch()
    return attachment.stream
  }

  /** Where this instance's events of a stream resumed on instance `to` are written. */
  remoteSink (sessionId: string, streamId: string, to: string): LiveStream {
    let ended = false
    const send = (eventId: string, json: string, last: boolean): void => {
      this.guard(this.engine.bus.send(to, { type: 'stream-event', session: sessionId, stream: streamId, eventId, json, last }))
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

  /** A request just started here: a cancel for it that came first aborts it now. */
  cancelIfEarly (session: Session, requestId: JsonRpcId): void {
    if (this.earlyCancels.size === 0) return
    const key = `${session.id} ${JSON.stringify(requestId)}`
    const early = this.earlyCancels.get(key)
    if (early === undefined) return
    this.earlyCancels.delete(key)
    if (early.until >= Date.now()) session.cancelRequest(requestId, early.reason)
  }

  /**
   * Legacy SSE, on the stream's instance: a cancel for a request the session is not running is
   * kept for a while, since the request may still come (forwarded from another instance, it can be
   * overtaken by a cancel POSTed here). True when kept: there is nothing else to do with it.
   */
  keepEarlyCancel (session: Session, classified: ClassifiedMessage): boolean {
    const cancel = cancelOf(classified)
    if (cancel === undefined || session.isHandling(cancel.requestId)) return false
    this.rememberCancel(session.id, cancel.requestId, cancel.reason)
    return true
  }

  private rememberCancel (session: string, requestId: JsonRpcId, reason: string): void {
    if (this.earlyCancels.size >= EARLY_CANCELS) this.earlyCancels.delete(this.earlyCancels.keys().next().value as string)
    this.earlyCancels.set(`${session} ${JSON.stringify(requestId)}`, { until: Date.now() + EARLY_CANCEL_MS, reason })
  }

  /** The app is ready: registry changes from now on are announced to every instance (see ListChangeAnnouncer). */
  startAnnouncing (): void {
    this.lists.start()
  }

  /** Server shutdown: sessions close here only; they live on at the other instances. */
  shutdown (): void {
    this.closing = true
    clearInterval(this.sweep)
    for (const key of [...this.attachments.keys()]) this.endAttachment(key)
    this.core.relay = undefined
  }

  private publish (message: FanoutMessage, reaches: (entry: ScaledEntry) => boolean): number {
    this.guard(this.engine.bus.fanout(message))
    let reached = 0
    for (const entry of this.local.values()) if (entry.holdsStream && reaches(entry)) reached++
    return reached
  }

  private onDirect ({ message }: Envelope<DirectMessage>): void {
    if (this.closing) return
    if (message.type === 'stream-event') {
      const key = `${message.session} ${message.stream}`
      const attachment = this.attachments.get(key)
      // Taking over from the store, which holds all this (recorded before it was sent).
      if (attachment === undefined || attachment.settling) return
      if (message.gone === true) {
        // The executor does not know the session (it restarted, or never had it): the request is not running.
        this.guard(this.takeOver(key, attachment, true))
      } else if (message.last) {
        this.endAttachment(key)
      } else if (message.json === '') {
        attachment.stream.prime(message.eventId, 1000)
        attachment.lastId = message.eventId
      } else {
        this.writeAttached(attachment, message.json, message.eventId)
      }
      return
    }
    const entry = this.local.get(message.session)
    if (entry !== undefined) {
      entry.direct(message)
    } else if (message.type === 'attach') {
      // The executor no longer holds the session: nothing will come from here.
      this.guard(this.engine.bus.send(message.to, { type: 'stream-event', session: message.session, stream: message.stream, eventId: '', json: '', last: true, gone: true }))
    }
  }

  private onControl ({ from, message }: Envelope<ControlMessage>): void {
    if (this.closing) return
    if (message.type === 'end') this.remote.delete(message.session)
    const entry = this.local.get(message.session)
    if (entry === undefined) {
      if (message.type === 'cancel') this.rememberCancel(message.session, message.requestId, message.reason)
      return
    }
    switch (message.type) {
      case 'cancel':
        if (entry.session.isHandling(message.requestId)) entry.session.cancelRequest(message.requestId, message.reason)
        else this.rememberCancel(message.session, message.requestId, message.reason)
        return
      case 'end':
        entry.localOnly = true
        entry.session.close(message.reason)
        return
      case 'changed':
        if (from !== this.self) this.guard(this.refresh(entry.session))
    }
  }

  private onFanout ({ position, message }: Envelope<FanoutMessage>): void {
    if (this.closing) return
    if (message.type === 'list-changed' && !this.lists.isNews(message.list, message.digest)) return
    // Parsed once for every receiver (only transports without a serialized path need it).
    const notification = JSON.parse(message.json) as JsonRpcNotification
    for (const entry of [...this.local.values()]) {
      if (message.type === 'resource-updated' ? entry.session.subscriptions.has(message.uri) : entry.session.state === 'ready') entry.fanout(position, message.json, notification)
    }
    // The 2026 listen streams of this instance.
    const event = message.type === 'resource-updated'
      ? { kind: 'resource_updated' as const, uri: message.uri, params: { uri: message.uri } }
      : changeEventOf(notification)
    if (event !== undefined) this.core.deliver(event)
  }

  private async refresh (session: Session): Promise<void> {
    const edits = this.edits.get(session) ?? 0
    const stored = await this.engine.sessions.get(session.id)
    // Changed here meanwhile: what was read is older than this copy.
    if (stored === undefined || (this.edits.get(session) ?? 0) !== edits) return
    session.logLevel = stored.record.logLevel
    session.subscriptions.clear()
    for (const uri of stored.record.subscriptions) session.subscriptions.add(uri)
  }

  /**
   * Local eviction and expiry: a session idle here is dropped from this instance (it lives on in
   * the store); one whose stream 0 is held here is kept while its record lives, and ended
   * everywhere once the store's TTL expired it.
   */
  private sweepIdle (): void {
    const cutoff = Date.now() - this.idleTimeoutMs
    for (const entry of [...this.local.values()]) {
      const { session } = entry
      if (session.lastActivity > cutoff || session.inflightCount > 0) continue
      if (!entry.holdsStream) {
        entry.localOnly = true
        session.close('evicted from this instance')
        continue
      }
      this.guard(this.engine.sessions.get(session.id).then(async (stored) => {
        if (stored === undefined) await this.expired(entry)
      }))
    }
  }

  private guard (pending: Promise<unknown>): void {
    pending.then(() => {
      if (this.failures === 0) return
      this.log.warn({ failed: this.failures }, 'MCP scale-out engine works again (failed: operations that failed meanwhile)')
      this.failures = 0
    }, (error: unknown) => { this.failed(error) })
  }
}
