import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ForeignSessionError, UnknownSessionError } from '../../errors.js'
import { cancelOf } from '../../jsonrpc/cancel.js'
import { classifyMessage, type ClassifiedMessage, type JsonRpcId } from '../../jsonrpc/messages.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { samePrincipal, type Principal } from '../../protocol/principal.js'
import type { Session } from '../../protocol/session.js'
import type { DirectMessage, ForwardedPrincipal, SessionEventStore } from '../../scale/ports.js'
import { postedMessage } from '../http/body.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import { SseStream } from '../http/sse-stream.js'
import type { StreamResources } from '../streamable/event-ids.js'
import type { SessionDirectory, SseReceiver, StreamableEntry, StreamableTable } from './directory.js'
import { GatewayChannel, SCALED_EVENT_ID, STREAM0_EVENT_ID, Stream0Claims } from './gateway.js'
import type { ScaledEntry, ScaleNode } from './node.js'
import { recordOf, sessionFromRecord } from './record.js'
import { methodsWith } from '../../protocol/methods/table.js'

/** Requests whose effect on the session other instances must see (`changed`). */
const SYNCED_METHODS = methodsWith('syncedAcrossInstances')

/** What the directory of a cluster reads from the options. */
export interface ClusterDirectoryOptions {
  readonly sessionInitTimeoutMs: number
  readonly maxQueuedBytes: number
}

/**
 * Every channel of a clustered endpoint is a gateway channel: the directory made it (`channel`,
 * `rebuild`), and the endpoint hands it back as a plain `StreamableChannel`.
 */
function gatewayOf (entry: StreamableEntry): GatewayChannel {
  return entry.channel as GatewayChannel
}

/**
 * Several instances serve the same sessions (`scaleOut`): a session is known everywhere through
 * its record, held here by a `Session` copy registered with this instance's {@link ScaleNode},
 * and what one instance cannot do alone goes through the engine. Streamable HTTP sessions are
 * rebuilt on any instance a request lands on; a legacy SSE session lives where its stream is, and
 * its POSTs are forwarded there.
 */
export class ClusterDirectory implements SessionDirectory {
  readonly events: SessionEventStore
  readonly eventsFailed: (error: unknown) => void
  private readonly node: ScaleNode
  private readonly core: ProtocolServer
  private readonly options: ClusterDirectoryOptions
  private readonly http: HttpPlumbing
  private readonly stream0: Stream0Claims
  /** Streamable HTTP sessions being rebuilt from their records (once per instance). */
  private readonly rebuilding = new Map<string, Promise<StreamableEntry | undefined>>()

  constructor (node: ScaleNode, core: ProtocolServer, options: ClusterDirectoryOptions, http: HttpPlumbing) {
    this.node = node
    this.core = core
    this.options = options
    this.http = http
    this.stream0 = new Stream0Claims(node, http)
    // The shared store: the user's `eventStore` when given (mountMcp put it in the engine).
    this.events = node.engine.events
    // The store is Redis, and an outage would log every event; the node logs once.
    this.eventsFailed = (error) => { node.health.failed(error) }
  }

  /** The node evicts what is idle here (it runs its own sweep); the store's TTL expires the rest. */
  startIdleExpiry (): () => void { return () => {} }

  used (session: Session): void {
    this.node.touch(session.id)
  }

  evictIfIdle (session: Session): boolean {
    return this.node.evictIfIdle(session)
  }

  started (session: Session, requestId: JsonRpcId): void {
    this.node.earlyCancels.applyTo(session, requestId)
  }

  /** Every instance aborts the session's handlers and ends its streams before the answer. */
  async end (session: Session, reason: string): Promise<void> {
    await this.node.endEverywhere(session.id, reason)
  }

  // ---- Streamable HTTP ------------------------------------------------------------

  channel (env: StreamResources): GatewayChannel {
    return new GatewayChannel(env, this.node)
  }

  /** The first request of a session on this instance loads its record; later ones use the copy. */
  async missing (id: string, table: StreamableTable): Promise<StreamableEntry> {
    const entry = await this.rebuild(id, table)
    if (entry === undefined) throw await this.node.unknownSession()
    return entry
  }

  /** A session opened on another instance, rebuilt here from its record (once per instance). */
  private async rebuild (id: string, table: StreamableTable): Promise<StreamableEntry | undefined> {
    let pending = this.rebuilding.get(id)
    if (pending === undefined) {
      pending = (async () => {
        const stored = await this.node.engine.sessions.get(id)
        const known = table.get(id)
        if (known !== undefined) return known
        if (stored === undefined || stored.record.kind !== 'streamable') return undefined
        const channel = this.channel(table.env)
        const session = sessionFromRecord(stored.record, channel)
        channel.bind(session)
        const entry: StreamableEntry = { session, channel }
        this.core.addSession(session, null)
        table.add(entry)
        this.hold(entry)
        return entry
      })()
      this.rebuilding.set(id, pending)
      void pending.finally(() => { this.rebuilding.delete(id) }).catch(() => {})
    }
    return await pending
  }

  /** Stored before its id goes out, so that the next request may land anywhere. */
  async initialized (entry: StreamableEntry, table: StreamableTable): Promise<void> {
    const { session } = entry
    try {
      // Until its client is back (on any instance: each one extends the record at its first
      // use), the record lives no longer than a session whose client never completes
      // initialization: nobody needs to end it everywhere (see `late` below).
      await this.node.engine.sessions.create(recordOf(session, 'streamable'), Math.min(this.options.sessionInitTimeoutMs, this.node.ttlMs))
    } catch (error) {
      // 503: the client starts over; the session must not hold a slot of maxSessions meanwhile.
      session.close('the session store is unavailable')
      throw error
    }
    table.add(entry)
    const held = this.hold(entry)
    // Not back here in time, but perhaps on another instance (round-robin): only this copy is
    // dropped. Never back anywhere: its record expires with the short lifetime above.
    this.http.limits.expectClient(session, () => {
      held.localOnly = true
      session.close('not initialized in time')
    })
  }

  /**
   * Registers a session this instance holds with the node. Its first use here extends the record
   * (`touchedAt` 0): the client is back, which a record made by `initialize` waits for.
   */
  private hold (entry: StreamableEntry): ScaledEntry {
    const { session } = entry
    const channel = gatewayOf(entry)
    // Server-request ids name this instance, so that a reply landing elsewhere finds its way back.
    session.requestIdPrefix = `s.${this.node.self}.`
    const held: ScaledEntry = {
      session,
      kind: 'streamable',
      localOnly: false,
      touchedAt: 0,
      get holdsStream () { return channel.isGateway },
      fanout: (position, json) => { channel.writeFanout(position, json) },
      direct: (message) => { this.receiveDirect(session, channel, message) }
    }
    this.node.register(held)
    return held
  }

  private receiveDirect (session: Session, channel: GatewayChannel, message: DirectMessage): void {
    switch (message.type) {
      case 'response': {
        const classified = classifyMessage(JSON.parse(message.json))
        if (classified.kind === 'response') session.receiveResponse(classified.message)
        return
      }
      case 'event':
        channel.writeLog(message.position, message.json)
        return
      case 'release':
        channel.releaseGateway()
        return
      case 'attach':
        void channel.planResume(message.after).then((plan) => {
          const sink = this.node.attachments.sinkTo(message.to, session.id, message.stream)
          if (plan === undefined) sink.end()
          else channel.resumeRemotely(plan, sink)
        })
    }
  }

  syncing (session: Session, method: string): Promise<void> | undefined {
    // A change made elsewhere may not have reached this copy yet (the write after takes the whole set).
    return SYNCED_METHODS.has(method) ? this.node.refresh(session) : undefined
  }

  async synced (session: Session): Promise<void> {
    await this.node.sync(session)
  }

  /**
   * A reply to a server request made on another instance goes there; a cancel of a request not
   * handled here goes to every instance (the executor aborts it).
   */
  routeAway (session: Session, classified: ClassifiedMessage): Promise<void> | undefined {
    const bus = this.node.engine.bus
    if (classified.kind === 'response') {
      const owner = this.node.ownerOfReply(classified.message.id)
      // A dead instance's request is gone with it: the reply is dropped.
      return owner === undefined ? undefined : bus.send(owner, { type: 'response', session: session.id, json: JSON.stringify(classified.message) }, { forRequest: true })
    }
    const cancel = cancelOf(classified)
    if (cancel === undefined || session.isHandling(cancel.requestId)) return undefined
    return bus.control({ type: 'cancel', session: session.id, ...cancel }, { forRequest: true })
  }

  /** Stream 0 resumed after `0_{s}_{b}`, wherever it was; a request stream of another executor, attached from there. */
  resumeElsewhere (request: FastifyRequest, reply: FastifyReply, entry: StreamableEntry, lastEventId: string): Promise<FastifyReply> | undefined {
    const stream0 = STREAM0_EVENT_ID.exec(lastEventId)
    if (stream0 !== null) return this.stream0.resume(request, reply, entry.session, gatewayOf(entry), stream0[1] ?? '0', stream0[2] ?? '0')
    const scaled = SCALED_EVENT_ID.exec(lastEventId)
    // Another instance's request stream; this instance's own (or no stream at all: 400) is the channel's.
    const executor = scaled?.[2]
    if (executor === undefined || executor === this.node.self) return undefined
    return this.attach(reply, entry, scaled?.[1] ?? '', executor, lastEventId)
  }

  private async attach (reply: FastifyReply, entry: StreamableEntry, streamId: string, executor: string, lastEventId: string): Promise<FastifyReply> {
    reply.hijack()
    await this.node.attachments.attach(entry.session.id, streamId, executor, lastEventId, reply.raw, reply.getHeaders() as OutgoingHttpHeaders,
      (raw) => new SseStream(raw, { maxQueuedBytes: this.options.maxQueuedBytes, onOverflow: () => {} }))
    return reply
  }

  openStream0 (request: FastifyRequest, reply: FastifyReply, entry: StreamableEntry): Promise<FastifyReply> {
    return this.stream0.open(request, reply, entry.session, gatewayOf(entry))
  }

  // ---- legacy SSE -----------------------------------------------------------------

  /**
   * The record tells other instances where to forward this session's POSTs; this instance,
   * holding the stream, executes them all (so replies and cancels stay here).
   */
  async sseOpened (session: Session, request: FastifyRequest, receiver: SseReceiver): Promise<void> {
    await this.node.engine.sessions.create(recordOf(session, 'sse'), this.node.ttlMs)
    await this.node.engine.sessions.claimGateway(session.id, this.node.self)
    this.node.register({
      session,
      kind: 'sse',
      localOnly: false,
      touchedAt: Date.now(),
      holdsStream: true,
      fanout: (_position, json, message) => { session.sendSerialized(json, message) },
      direct: (message) => {
        if (message.type === 'forward') receiver.receiveForwarded(session, message.json, principalOf(message.principal, request.mcpPrincipal), request)
      }
    })
  }

  /**
   * In order, and accepted once the bus has it. Its owner gone: the session is (legacy streams
   * cannot resume).
   */
  async forward (sessionId: string, request: FastifyRequest): Promise<void> {
    const stored = await this.node.remoteSession(sessionId)
    if (stored === undefined) throw await this.node.unknownSession()
    const { record, gateway } = stored
    if (record.kind !== 'sse' || gateway === undefined) throw new UnknownSessionError()
    const bus = this.node.engine.bus
    // The cached live set may predate an owner started since: the registry decides a "no".
    if (!bus.alive(gateway) && !await bus.checkAlive(gateway)) throw new UnknownSessionError()
    if (!samePrincipal(record.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    postedMessage(request)
    // The claims stay here: Redis holds what the owner checks the message with, no more.
    const principal = withoutClaims(request.mcpPrincipal)
    // Refused (503) while Redis is unreachable rather than queued: a POST answered 503 never runs later.
    await bus.send(gateway, { type: 'forward', session: sessionId, json: JSON.stringify(request.body), ...(principal === undefined ? {} : { principal }) }, { forRequest: true })
  }

  /** On the stream's instance: the request may still come, forwarded, overtaken by a cancel POSTed here. */
  keepsCancel (session: Session, classified: ClassifiedMessage): boolean {
    return this.node.earlyCancels.keep(session, classified)
  }
}

function withoutClaims (principal: Principal | undefined): ForwardedPrincipal | undefined {
  if (principal === undefined) return undefined
  const { claims: _claims, ...rest } = principal
  return rest
}

/**
 * The principal a forwarded POST runs with on the owner: the identity, scopes and expiry its
 * receiver verified, and the claims of the stream's GET, the same identity (checked against the
 * session's record before forwarding), as they were when the stream opened.
 */
function principalOf (forwarded: ForwardedPrincipal | undefined, stream: Principal | undefined): Principal | undefined {
  if (forwarded === undefined) return undefined
  return { ...forwarded, claims: samePrincipal(forwarded, stream) ? { ...stream?.claims } : {} }
}
