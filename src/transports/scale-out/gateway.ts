import type { OutgoingHttpHeaders, ServerResponse } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { JsonRpcId } from '../../jsonrpc/messages.js'
import type { Session } from '../../protocol/session.js'
import type { GatewayClaim } from '../../scale/ports.js'
import { comparePositions } from '../../scale/position.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import { StreamableChannel } from '../streamable/channel.js'
import { PRIMING_RETRY_MS, type LiveStream, type ResumePlan, type StreamResources } from '../streamable/event-ids.js'
import type { ScaleNode } from './node.js'
import { INSTANCE_ID_SOURCE } from '../../util/ids.js'

/** A request stream's event id names its executor: `{instance}.{k}_{n}`. */
export const SCALED_EVENT_ID = new RegExp(`^((${INSTANCE_ID_SOURCE})\\.\\d{1,15})_\\d{1,15}$`)
/** A stream-0 event id, `0_{s}_{b}` (log and fan-out positions), `.p` for priming. */
export const STREAM0_EVENT_ID = /^0_(\d{1,20}(?:-\d{1,20})?)_(\d{1,20}(?:-\d{1,20})?)(?:\.p)?$/

/** What a gateway needs of its instance's node. */
export interface GatewayNode {
  /** This instance: request streams are named `{self}.{k}`. */
  readonly self: string
  /** Hands a stream-0 message to whichever instance holds the session's stream 0. */
  readonly deliver0: (sessionId: string, json: string) => void
}

/** A stream-0 message that reached the gateway while a resume was replaying: written after, unless replayed. */
interface HeldArrival {
  kind: 'log' | 'fanout'
  position: string
  json: string
}

/**
 * The channel of a Streamable HTTP session that several instances serve. Request streams are as
 * on one instance, named after their executor (`{self}.{k}`) and recorded in the shared event
 * store. Stream 0 (the standalone GET stream) lives in the bus instead: every message for it goes
 * to the session's log and the fan-out, and the one instance that holds the client's GET (the
 * session's gateway) writes it. Its event ids are `0_{s}_{b}`, the last log and fan-out positions
 * written, so a resume on any instance knows where to start in both.
 */
export class GatewayChannel extends StreamableChannel {
  private readonly node: GatewayNode
  private gateway = false
  private lastLog = '0'
  private lastFanout = '0'
  private held0: HeldArrival[] | undefined
  /** Log positions the last resume replayed (at most the log's length): their live entries may still come. */
  private replayed = new Set<string>()

  constructor (env: StreamResources, node: GatewayNode) {
    super(env)
    this.node = node
  }

  override sendSerialized (json: string, relatedRequestId?: JsonRpcId): void {
    if (relatedRequestId !== undefined) {
      super.sendSerialized(json, relatedRequestId)
      return
    }
    // Only registry changes come here (broadcasts go through the bus); every instance announces
    // its own, so the gateway writes it and nobody else.
    this.writeGateway(json, `0_${this.lastLog}_${this.lastFanout}`)
  }

  /** The events are shared: closing here may only drop this instance's copy. */
  override close (): void {
    this.endStreams()
    this.env.store?.release?.(this.session.id)
  }

  protected override nextStreamId (): string {
    return `${this.node.self}.${super.nextStreamId()}`
  }

  protected override streamIdOf (eventId: string): string | undefined {
    return SCALED_EVENT_ID.exec(eventId)?.[1]
  }

  protected override sendStandalone (json: string): void {
    this.node.deliver0(this.session.id, json)
  }

  /**
   * A client resumed one of this instance's request streams on another instance; the stream's
   * events go there through the bus (`sink`) from now on.
   */
  resumeRemotely (plan: ResumePlan, sink: LiveStream): void {
    this.resumeOn(plan, (channel) => {
      if (channel !== undefined) channel.live = sink
      return sink
    })
  }

  /** True while this instance holds the session's stream 0. */
  get isGateway (): boolean {
    return this.gateway
  }

  /**
   * This instance claimed stream 0 for a plain GET: what the log and the fan-out held at the claim
   * went to the previous holder; the stream starts after `tail` and `fanout`.
   */
  openGateway (res: ServerResponse, headers: OutgoingHttpHeaders, tail: string, fanout: string): void {
    this.gateway = true
    this.held0 = undefined
    this.replayed = new Set()
    this.lastLog = tail
    this.lastFanout = fanout
    this.dropLive(this.standalone)?.end()
    const stream = this.attach(this.standalone, res, headers)
    if (this.resumable) stream.prime(`0_${tail}_${fanout}.p`, PRIMING_RETRY_MS)
  }

  /**
   * This instance claimed stream 0 for a resume after `0_{log}_{fanout}`: arrivals are held from
   * now until {@link finishResume0} has written the replay.
   */
  beginResume0 (log: string, fanout: string): void {
    this.gateway = true
    this.lastLog = log
    this.lastFanout = fanout
    this.held0 = []
    this.replayed = new Set()
  }

  /** Writes the replay (log, then fan-out), then what arrived meanwhile and was not in it; then live. */
  finishResume0 (res: ServerResponse, headers: OutgoingHttpHeaders, log: Array<{ position: string, json: string }>, fanout: Array<{ position: string, json: string }>): void {
    const held = this.held0 ?? []
    this.held0 = undefined
    this.dropLive(this.standalone)?.end()
    this.attach(this.standalone, res, headers)
    for (const entry of log) {
      this.writeLog(entry.position, entry.json)
      this.replayed.add(entry.position)
    }
    for (const entry of fanout) this.writeFanout(entry.position, entry.json)
    for (const arrival of held) {
      if (arrival.kind === 'log') this.writeLog(arrival.position, arrival.json)
      else this.writeFanout(arrival.position, arrival.json)
    }
  }

  /** Another instance holds stream 0 now: end ours, keep the session. */
  releaseGateway (): void {
    this.gateway = false
    this.held0 = undefined
    this.replayed = new Set()
    this.dropLive(this.standalone)?.end()
  }

  /**
   * A stream-0 message routed here by `deliver0`, at `position` in the session's log. One at or
   * before the last position written is dropped only if the resume's replay wrote it: the bus
   * hands each inbox entry once and drops those read from the log ahead of their entry, and after
   * a failover a message logged on the old primary can come after newer ones of the new primary
   * (its XADD re-sent there, or its entry written again). That one is written under the last event
   * id: a resume must not go back, and the new primary's log may not hold it.
   */
  writeLog (position: string, json: string): void {
    if (!this.gateway) return
    const behind = comparePositions(position, this.lastLog) <= 0
    if (behind && this.replayed.has(position)) return
    if (this.held0 !== undefined) {
      this.held0.push({ kind: 'log', position, json })
      return
    }
    if (!behind) this.lastLog = position
    this.writeGateway(json, `0_${this.lastLog}_${this.lastFanout}`)
  }

  /** A broadcast or resource update at `position` in the fan-out. */
  writeFanout (position: string, json: string): void {
    if (!this.gateway || comparePositions(position, this.lastFanout) <= 0) return
    if (this.held0 !== undefined) {
      this.held0.push({ kind: 'fanout', position, json })
      return
    }
    this.lastFanout = position
    this.writeGateway(json, `0_${this.lastLog}_${position}`)
  }

  private writeGateway (json: string, id: string): void {
    if (!this.gateway || this.held0 !== undefined) return
    this.standalone.live?.message(json, this.resumable ? id : undefined)
  }
}

/**
 * The GETs that make this instance the session's gateway: each claims stream 0 in the store
 * (atomically against deliveries: every message up to the claim went to the previous holder, which
 * is told to release it, and every later one comes here), then opens the stream after the claim,
 * or replays what the client missed first.
 */
export class Stream0Claims {
  private readonly node: ScaleNode
  private readonly http: HttpPlumbing

  constructor (node: ScaleNode, http: HttpPlumbing) {
    this.node = node
    this.http = http
  }

  /** A plain GET: the stream starts after the claim's tail (and the fan-out this instance has handed on). */
  async open (request: FastifyRequest, reply: FastifyReply, session: Session, channel: GatewayChannel): Promise<FastifyReply> {
    const claim = await this.claim(session, channel)
    const headers = reply.getHeaders() as OutgoingHttpHeaders
    reply.hijack()
    // Gone before we got here: no 'close' would ever come to free the stream slot.
    if (reply.raw.socket === null || reply.raw.socket.destroyed) return reply
    channel.openGateway(reply.raw, headers, claim.tail, this.node.engine.bus.fanoutCursor())
    this.http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }

  /** A GET after `0_{log}_{fanout}`, wherever stream 0 was: what the client missed (the log, then the fan-out), then live. */
  async resume (request: FastifyRequest, reply: FastifyReply, session: Session, channel: GatewayChannel, log: string, fanout: string): Promise<FastifyReply> {
    channel.beginResume0(log, fanout)
    await this.claim(session, channel)
    const headers = reply.getHeaders() as OutgoingHttpHeaders
    const bus = this.node.engine.bus
    const [logged, fanned] = await Promise.all([bus.log0After(session.id, log), bus.fanoutAfter(fanout)])
    // A list change missed is one re-list to do, however many instances made it: the latest per list.
    const lastChange = new Map(fanned.map(({ message }, index) => [message.type === 'list-changed' ? message.list : '', index]))
    const missed = fanned.filter(({ message }, index) => message.type === 'broadcast' ||
      (message.type === 'resource-updated' && session.isSubscribed(message.uri)) ||
      (message.type === 'list-changed' && lastChange.get(message.list) === index))
      .map(({ position, message }) => ({ position, json: message.json }))
    reply.hijack()
    channel.finishResume0(reply.raw, headers, logged, missed)
    this.http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }

  private async claim (session: Session, channel: GatewayChannel): Promise<GatewayClaim> {
    const claim = await this.node.engine.sessions.claimGateway(session.id, this.node.self)
    if (claim === undefined) {
      channel.releaseGateway()
      // Shortly after Redis lost its data the record may not be back yet: 503, not 404.
      throw await this.node.unknownSession()
    }
    if (claim.previous !== undefined && claim.previous !== this.node.self) await this.node.engine.bus.send(claim.previous, { type: 'release', session: session.id })
    return claim
  }
}
