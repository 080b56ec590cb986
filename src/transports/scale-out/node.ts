import type { FastifyBaseLogger } from 'fastify'
import { ScaleUnavailableError, UnknownSessionError } from '../../errors.js'
import { changeEventOf } from '../../protocol/changes.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import type { JsonRpcNotification } from '../../jsonrpc/messages.js'
import type { Session } from '../../protocol/session.js'
import type { ControlMessage, DirectMessage, Envelope, FanoutMessage, ScaleEngine, SessionRecord, StoredSession } from '../../scale/ports.js'
import { storedLifetimeMs } from '../../scale/lifetime.js'
import { sweepEvery } from '../http/idle.js'
import { Attachments } from './attachments.js'
import { EarlyCancels } from './early-cancels.js'
import { EngineHealth } from './health.js'
import { ListChangeAnnouncer } from './list-announcer.js'
import { recordOf } from './record.js'
import { INSTANCE_ID_SOURCE } from '../../util/ids.js'

/** Server-request ids name their instance, so a reply landing anywhere finds the waiting one. */
const SERVER_REQUEST_ID = new RegExp(`^s\\.(${INSTANCE_ID_SOURCE})\\.\\d{1,15}$`)

/** Records of other instances' sessions kept at most (legacy SSE forwarding), the oldest dropped first. */
const MAX_REMOTE_RECORDS = 10_000

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

/**
 * One instance's end of the scale-out engine, shared by both HTTP transports: the bus handlers,
 * the sessions this instance holds, TTL extension, local eviction and restore, and the change
 * relay. Remote resumes are {@link Attachments}, cancels that overtake their request
 * {@link EarlyCancels}. Everything that crosses instances goes through `engine` (the ports).
 */
export class ScaleNode {
  readonly engine: ScaleEngine
  readonly self: string
  /** Failures of the engine operations nobody waits for. */
  readonly health: EngineHealth
  readonly attachments: Attachments
  readonly earlyCancels = new EarlyCancels()
  private readonly core: ProtocolServer
  private readonly log: FastifyBaseLogger
  private readonly idleTimeoutMs: number
  private readonly local = new Map<string, ScaledEntry>()
  /** Records of sessions held elsewhere that this instance forwards to (legacy SSE POSTs). */
  private readonly remote = new Map<string, StoredSession>()
  /** Changes written from here per session, so that a slower refresh does not undo a newer local change. */
  private readonly edits = new WeakMap<Session, number>()
  private readonly lists: ListChangeAnnouncer
  private sweep: NodeJS.Timeout | undefined
  private closing = false

  constructor (engine: ScaleEngine, core: ProtocolServer, options: { idleTimeoutMs: number }, log: FastifyBaseLogger) {
    this.engine = engine
    this.self = engine.bus.self
    this.core = core
    this.log = log
    this.health = new EngineHealth(log)
    this.attachments = new Attachments(engine, this.health)
    this.idleTimeoutMs = options.idleTimeoutMs
    engine.bus.onDirect((envelope) => { this.onDirect(envelope) })
    engine.bus.onControl((envelope) => { this.onControl(envelope) })
    engine.bus.onFanout((envelope) => { this.onFanout(envelope) })
    this.lists = new ListChangeAnnouncer(core.registry)
    core.setRelay({
      broadcast: (json) => this.publish({ type: 'broadcast', json }, (entry) => entry.session.state === 'ready'),
      resourceUpdated: (uri, json) => this.publish({ type: 'resource-updated', uri, json }, (entry) => entry.session.isSubscribed(uri)),
      listChanged: (list, digest, json) => {
        if (this.lists.publishing) this.health.background(this.engine.bus.fanout({ type: 'list-changed', list, digest, json }))
      },
      written: () => this.engine.bus.written?.()
    })
    // Redis lost its data: the sessions held here are put back, or the next request on another
    // instance would find them gone (404), and stream-0 messages no holder (dropped).
    engine.onRedisRestart?.(() => { this.restoreAll() })
    // Idle expiry is the store's TTL; what is idle here is evicted from here.
    if (this.idleTimeoutMs > 0) this.sweep = setInterval(() => { this.sweepIdle() }, sweepEvery(this.idleTimeoutMs)).unref()
  }

  get ttlMs (): number { return storedLifetimeMs(this.idleTimeoutMs) }

  register (entry: ScaledEntry): void {
    this.local.set(entry.session.id, entry)
    entry.session.onClose(() => {
      if (this.local.get(entry.session.id) === entry) this.local.delete(entry.session.id)
      if (!entry.localOnly && !this.closing) this.health.background(this.endEverywhere(entry.session.id, 'session ended'))
    })
  }

  /** A session held here was used: its record's TTL is extended (see {@link extendRecord}). */
  touch (id: string): void {
    const entry = this.local.get(id)
    if (entry !== undefined) this.extendRecord(entry)
  }

  /** Extends the TTL of a session's record, at most once per quarter of the idle timeout. */
  extendRecord (entry: ScaledEntry): void {
    const now = Date.now()
    if (now - entry.touchedAt < this.ttlMs / 4) return
    entry.touchedAt = now
    this.health.background(this.engine.sessions.touch(entry.session.id, this.ttlMs).then(async (alive) => {
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
    for (const entry of entries) this.health.background(this.restore(entry))
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
      if (this.remote.size >= MAX_REMOTE_RECORDS) this.remote.delete(this.remote.keys().next().value as string)
      this.remote.set(id, stored)
    }
    return stored
  }

  /** Hands a stream-0 message to the gateway; failures are logged, never thrown at the handler. */
  deliver0 (sessionId: string, json: string): void {
    this.health.background(this.engine.bus.deliver0(sessionId, json))
  }

  /** The instance a server-request id names, when it is another one. */
  ownerOfReply (id: unknown): string | undefined {
    if (typeof id !== 'string') return undefined
    const owner = SERVER_REQUEST_ID.exec(id)?.[1]
    return owner === this.self ? undefined : owner
  }

  /** Persists what a request changed in the session (log level, subscriptions) and tells the others. */
  async sync (session: Session): Promise<void> {
    this.edits.set(session, (this.edits.get(session) ?? 0) + 1)
    await this.engine.sessions.update(session.id, { logLevel: session.logLevel, subscriptions: [...session.subscriptions] })
    await this.engine.bus.control({ type: 'changed', session: session.id })
  }

  /**
   * The latest record of the session, since a change made elsewhere may not have reached this copy
   * yet: before a request that changes the session (the write after takes the whole set), and when
   * another instance says it changed.
   */
  async refresh (session: Session): Promise<void> {
    const edits = this.edits.get(session) ?? 0
    const stored = await this.engine.sessions.get(session.id)
    // Changed here meanwhile: what was read is older than this copy.
    if (stored === undefined || (this.edits.get(session) ?? 0) !== edits) return
    session.logLevel = stored.record.logLevel
    session.subscriptions.clear()
    for (const uri of stored.record.subscriptions) session.subscriptions.add(uri)
  }

  /** The app is ready: registry changes from now on are announced to every instance (see ListChangeAnnouncer). */
  startAnnouncing (): void {
    this.lists.start()
  }

  /** Server shutdown: sessions close here only; they live on at the other instances. */
  shutdown (): void {
    this.closing = true
    clearInterval(this.sweep)
    this.attachments.closeAll()
    this.core.setRelay(undefined)
  }

  private publish (message: FanoutMessage, reaches: (entry: ScaledEntry) => boolean): number {
    this.health.background(this.engine.bus.fanout(message))
    let reached = 0
    for (const entry of this.local.values()) if (entry.holdsStream && reaches(entry)) reached++
    return reached
  }

  private onDirect ({ message }: Envelope<DirectMessage>): void {
    if (this.closing) return
    if (message.type === 'stream-event') {
      this.attachments.onStreamEvent(message)
      return
    }
    const entry = this.local.get(message.session)
    if (entry !== undefined) entry.direct(message)
    else if (message.type === 'attach') this.attachments.refuse(message)
  }

  private onControl ({ from, message }: Envelope<ControlMessage>): void {
    if (this.closing || message.type === 'task-cancel') return
    if (message.type === 'end') this.remote.delete(message.session)
    const entry = this.local.get(message.session)
    if (entry === undefined) {
      if (message.type === 'cancel') this.earlyCancels.remember(message.session, message.requestId, message.reason)
      return
    }
    switch (message.type) {
      case 'cancel':
        if (entry.session.isHandling(message.requestId)) entry.session.cancelRequest(message.requestId, message.reason)
        else this.earlyCancels.remember(message.session, message.requestId, message.reason)
        return
      case 'end':
        entry.localOnly = true
        entry.session.close(message.reason)
        return
      case 'changed':
        if (from !== this.self) this.health.background(this.refresh(entry.session))
    }
  }

  private onFanout ({ position, message }: Envelope<FanoutMessage>): void {
    if (this.closing) return
    if (message.type === 'list-changed' && !this.lists.isNews(message.list, message.digest)) return
    // Parsed once for every receiver (only transports without a serialized path need it).
    const notification = JSON.parse(message.json) as JsonRpcNotification
    for (const entry of [...this.local.values()]) {
      if (message.type === 'resource-updated' ? entry.session.isSubscribed(message.uri) : entry.session.state === 'ready') entry.fanout(position, message.json, notification)
    }
    // The 2026 listen streams of this instance.
    const event = message.type === 'resource-updated'
      ? { kind: 'resource_updated' as const, uri: message.uri, params: { uri: message.uri } }
      : changeEventOf(notification)
    if (event !== undefined) this.core.deliver(event)
  }

  /** Evicts the copy of `session` held here if idle past the timeout and holding no stream, as the sweep would; true when it did. */
  evictIfIdle (session: Session, cutoff = Date.now() - this.idleTimeoutMs): boolean {
    const entry = this.local.get(session.id)
    if (entry?.session !== session || entry.holdsStream || this.idleTimeoutMs === 0 || session.lastActivity > cutoff || session.inflightCount > 0) return false
    entry.localOnly = true
    session.close('evicted from this instance')
    return true
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
      if (session.lastActivity > cutoff || session.inflightCount > 0 || this.evictIfIdle(session, cutoff)) continue
      this.health.background(this.engine.sessions.get(session.id).then(async (stored) => {
        if (stored === undefined) await this.expired(entry)
      }))
    }
  }
}
