import type { MeterProvider, TracerProvider } from '@opentelemetry/api'
import type { ClassifiedMessage } from '../jsonrpc/messages.js'
import { ATTR_AUTH_METHOD, ATTR_AUTH_REASON, ATTR_ERROR_TYPE, ATTR_LIMIT, ATTR_MCP_PROTOCOL_VERSION } from './names.js'
import { setNetwork, type NetworkPeer } from './network.js'
import { ServerOperation } from './operation.js'
import { Providers, type GaugeSource } from './providers.js'

export interface TelemetrySettings {
  /** False: no spans, no metrics, whatever the application registered. */
  enabled: boolean
  tracerProvider?: TracerProvider | undefined
  meterProvider?: MeterProvider | undefined
}

/** What telemetry reads from the server: registered names (for span names and labels) and open sessions. */
export interface TelemetrySource {
  knows: (kind: 'tool' | 'prompt', name: string) => boolean
  sessions: () => number
}

/** What telemetry reads of a session (protocol/session.ts `Session` is one): it never holds one. */
export interface TelemetrySession {
  /** Empty on stdio and on a 2026-07-28 request, which have no session id. */
  readonly id: string
  readonly protocolVersion: string | undefined
  readonly closeReason: string | undefined
  onClose: (listener: () => void) => void
}

/** Session close reasons that mean the server cut the client off (an error in the conventions' terms). */
const SLOW_CONSUMER = 'slow consumer'

/**
 * The server's OpenTelemetry instrumentation (MCP semantic conventions), through
 * `@opentelemetry/api` only: the application owns the SDK, exporters and sampling. Every entry
 * point returns at once, allocating nothing, when no SDK is registered or telemetry is off.
 */
export class Telemetry {
  private readonly providers: Providers | undefined
  private readonly source: TelemetrySource
  private readonly streamCounts = new Map<string, () => number>()

  constructor (settings: TelemetrySettings, source: TelemetrySource) {
    this.source = source
    const gauges: GaugeSource = {
      sessions: source.sessions,
      streams: () => [...this.streamCounts].map(([kind, count]) => [kind, count()])
    }
    this.providers = settings.enabled ? new Providers(settings, gauges) : undefined
  }

  /**
   * Adds a kind of open stream to the `fastify_mcp.server.streams.open` gauge (read only when a
   * metric reader collects). Kinds add up when several transports report the same one.
   */
  countStreams (kind: string, count: () => number): void {
    const previous = this.streamCounts.get(kind)
    this.streamCounts.set(kind, previous === undefined ? count : () => previous() + count())
  }

  /**
   * Starts the operation of one incoming request or notification; undefined when nothing
   * listens (the dispatcher then takes its plain path). Responses and invalid messages are not
   * operations: the first end a server-to-client request, the second never reach a handler.
   */
  begin (session: TelemetrySession, classified: ClassifiedMessage, peer: NetworkPeer | undefined): ServerOperation | undefined {
    if (this.providers === undefined || !this.providers.mayRecord() || (classified.kind !== 'request' && classified.kind !== 'notification')) return undefined
    const tracer = this.providers.tracer()
    const instruments = this.providers.instruments()
    if (tracer === undefined && instruments === undefined) return undefined
    const message = classified.message
    return new ServerOperation(tracer, instruments, {
      method: message.method,
      id: classified.kind === 'request' ? classified.message.id : undefined,
      params: message.params,
      // stdio has no session id in MCP, and a 2026-07-28 request no session at all.
      sessionId: peer === undefined || session.id === '' ? undefined : session.id,
      protocolVersion: () => session.protocolVersion,
      peer,
      knows: this.source.knows
    })
  }

  /** Records `mcp.server.session.duration` when the session closes (if a meter is active then). */
  trackSession (session: TelemetrySession, peer: NetworkPeer | undefined): void {
    if (this.providers === undefined) return
    const opened = performance.now()
    if (!this.providers.mayRecord()) return
    session.onClose(() => {
      const instruments = this.providers?.instruments()
      if (instruments === undefined) return
      const attributes: Record<string, string> = {}
      setNetwork(attributes, peer, false)
      if (session.protocolVersion !== undefined) attributes[ATTR_MCP_PROTOCOL_VERSION] = session.protocolVersion
      if (session.closeReason?.startsWith(SLOW_CONSUMER) === true) {
        attributes[ATTR_ERROR_TYPE] = 'slow_consumer'
        instruments.slowConsumers.add(1, attributes)
        // A bound met like any other: its refusal is the end of the session.
        instruments.limitRefusals.add(1, { [ATTR_LIMIT]: 'maxQueuedBytes' })
      }
      instruments.sessionDuration.record((performance.now() - opened) / 1000, attributes)
    })
  }

  /**
   * An authentication refusal on an MCP route. `reason` is `missing_credential` or the RFC 6750
   * error code (`invalid_token`, `invalid_request`, `insufficient_scope`, `temporarily_unavailable`):
   * never the credential, never a message that could quote it.
   */
  authFailure (method: string, reason: string): void {
    this.providers?.instruments()?.authFailures.add(1, { [ATTR_AUTH_METHOD]: method, [ATTR_AUTH_REASON]: reason })
  }

  /** A request or session refused because a configured limit was reached; `limit` is the option's name. */
  limitRefusal (limit: string): void {
    this.providers?.instruments()?.limitRefusals.add(1, { [ATTR_LIMIT]: limit })
  }
}
