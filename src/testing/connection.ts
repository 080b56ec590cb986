import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import type { JsonRpcId, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../jsonrpc/messages.js'
import type { MirroredParam } from '../protocol/modern/mcp-header.js'
import { META_SERVER_INFO, MODERN_VERSION } from '../protocol/modern/meta.js'
import type { LogLevel } from '../protocol/session.js'
import { isRecord } from '../util/is-record.js'
import type { Channel, Inbound, SendOptions } from './channel.js'
import { HttpChannel } from './http-channel.js'
import { mirroredParamsOf, modernHeaders, withClaims, type ClientIdentity } from './modern-wire.js'
import type { ClientHandlers, RequestOptions } from './types.js'

/** The 2025 revision a client opens sessions with. */
export const LEGACY_VERSION = '2025-11-25'

/** Which protocol generation a connection speaks: 2026-07-28 (stateless) or an `initialize` session. */
export type Generation = 'modern' | 'legacy'

/** The methods whose handlers may ask the client (multi-round-trip on 2026-07-28) and report progress. */
const CALLS = new Set(['tools/call', 'prompts/get', 'resources/read'])

/** A server that keeps answering `input_required` past this many rounds is looping. */
const MAX_INPUT_ROUNDS = 16

export interface ConnectionSettings extends ClientHandlers {
  clientInfo: { name: string, version: string }
  /** Declared on top of what the handlers declare. */
  capabilities: Record<string, unknown>
  logLevel: LogLevel | undefined
  /** Default wait for each answer, in ms; 0 = none. */
  timeoutMs: number
  /** Every notification the server sends, in order. */
  onNotification: (message: JsonRpcNotification) => void
}

export interface CallOptions extends RequestOptions {
  /** Client capabilities this one request declares on top (2026-07-28: the Tasks extension). */
  capabilities?: Record<string, unknown>
  /** The request's id, when the caller needs it before the answer (a listen stream). */
  id?: JsonRpcId
}

/**
 * One client's conversation with a server, on either generation and any channel: ids, `_meta`
 * claims and mirrored headers (2026-07-28), the session handshake (2025-11-25), progress tokens,
 * timeouts and cancellation, and the answers to what the server asks of the client, as
 * multi-round-trip rounds or as live requests. Results come back as the server sent them.
 */
export class Connection {
  generation: Generation = 'modern'
  /** The version spoken: 2026-07-28, or the one `initialize` agreed on. */
  protocolVersion = MODERN_VERSION
  /** The `initialize` answer of a 2025 session. */
  initializeResult: Record<string, unknown> | undefined
  private channel: Channel | undefined
  private readonly settings: ConnectionSettings
  private nextId = 1
  /** Tools' mirrored parameters (`x-mcp-header`), from the lists seen: a 2026-07-28 call over HTTP sends them as headers. */
  private readonly mirrors = new Map<string, MirroredParam[]>()

  constructor (settings: ConnectionSettings) {
    this.settings = settings
  }

  /** Where the channel delivers the server's notifications and requests. */
  readonly inbound: Inbound = {
    notification: (message) => { this.settings.onNotification(message) },
    request: async (message) => await this.answer(message.method, message.params ?? {})
  }

  attach (channel: Channel): void {
    this.channel = channel
  }

  /** The capabilities this client declares: the handlers' ones, then the caller's own. */
  get capabilities (): Record<string, unknown> {
    const declared: Record<string, unknown> = {}
    if (this.settings.onElicit !== undefined) declared.elicitation = {}
    if (this.settings.onSample !== undefined) declared.sampling = {}
    if (this.settings.onListRoots !== undefined) declared.roots = {}
    return { ...declared, ...this.settings.capabilities }
  }

  newId (): number {
    return this.nextId++
  }

  /** Opens a 2025 session: `initialize`, `notifications/initialized`, then the log level asked for. */
  async initialize (version = LEGACY_VERSION, options: RequestOptions = {}): Promise<Record<string, unknown>> {
    this.generation = 'legacy'
    const result = await this.send('initialize', { protocolVersion: version, capabilities: this.capabilities, clientInfo: this.settings.clientInfo }, options)
    this.initializeResult = result
    this.protocolVersion = typeof result.protocolVersion === 'string' ? result.protocolVersion : version
    if (this.channel instanceof HttpChannel) this.channel.protocolVersion = this.protocolVersion
    await this.channelOf().notify({ jsonrpc: '2.0', method: 'notifications/initialized' })
    const capabilities = isRecord(result.capabilities) ? result.capabilities : {}
    if (this.settings.logLevel !== undefined && capabilities.logging !== undefined) await this.send('logging/setLevel', { level: this.settings.logLevel }, options)
    return result
  }

  /** Speaks 2026-07-28 from now on (no handshake: each request carries its claims). */
  useModern (): void {
    this.generation = 'modern'
    this.protocolVersion = MODERN_VERSION
    if (this.channel instanceof HttpChannel) this.channel.protocolVersion = MODERN_VERSION
  }

  /**
   * One request, answered: on 2026-07-28, `input_required` rounds are answered by the handlers
   * and retried until a final result. Throws the server's error as an `McpError`.
   */
  async call (method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    const result = this.generation === 'modern' ? await this.callModern(method, params, options) : await this.send(method, params, options)
    if (method === 'tools/list' && Array.isArray(result.tools)) this.learnTools(result.tools)
    return result
  }

  /** HTTP sessions: opens the stream of what the server sends outside requests (other channels carry it already). */
  async openEvents (): Promise<void> {
    await this.channel?.openEvents?.({})
  }

  async close (): Promise<void> {
    await this.channel?.close()
  }

  private async callModern (method: string, params: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    const capabilities = { ...this.capabilities, ...options.capabilities }
    const identity: ClientIdentity = { clientInfo: this.settings.clientInfo, capabilities, logLevel: this.settings.logLevel }
    if (method === 'tools/call' && this.channel?.kind === 'http') await this.learnMirrors(String(params.name), options)
    let retry: Record<string, unknown> = {}
    for (let round = 0; ; round++) {
      const id = round === 0 && options.id !== undefined ? options.id : this.newId()
      const extra = CALLS.has(method) ? { progressToken: id } : {}
      const body = withClaims({ ...params, ...retry }, identity, extra)
      const headers = this.channel?.kind === 'http' ? modernHeaders(method, body, method === 'tools/call' ? this.mirrors.get(String(params.name)) : undefined) : undefined
      const result = await this.send(method, body, { ...options, id }, headers)
      if (result.resultType !== 'input_required') return result
      if (round + 1 >= MAX_INPUT_ROUNDS) throw new McpError(ErrorCode.InternalError, `${method}: the server asked for input ${MAX_INPUT_ROUNDS} times in a row`)
      const requests = isRecord(result.inputRequests) ? result.inputRequests : {}
      const inputResponses: Record<string, unknown> = {}
      for (const [key, request] of Object.entries(requests)) {
        const asked = isRecord(request) ? request : {}
        inputResponses[key] = await this.answer(String(asked.method), isRecord(asked.params) ? asked.params : {})
      }
      // The retry: a new id, the same params, the answers, and the state echoed byte for byte.
      retry = result.requestState === undefined ? { inputResponses } : { inputResponses, requestState: result.requestState }
    }
  }

  /** Sends one request and waits for its answer, within the timeout and until `signal` aborts. */
  private async send (method: string, params: Record<string, unknown>, options: CallOptions = {}, headers?: Record<string, string>): Promise<Record<string, unknown>> {
    const channel = this.channelOf()
    const id = options.id ?? this.newId()
    if (this.generation === 'legacy' && CALLS.has(method)) params = { ...params, _meta: { ...(isRecord(params._meta) ? params._meta : {}), progressToken: id } }
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params }
    const controller = new AbortController()
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs
    // Not unref'd, and cleared when the answer comes: a request in flight keeps the process alive,
    // as its socket would, so that a test awaiting a hung call fails on the timeout instead of
    // ending with the call still pending.
    const timer = timeoutMs > 0
      ? setTimeout(() => { controller.abort(new McpError(ErrorCode.RequestTimeout, `${method}: no answer within ${timeoutMs} ms`)) }, timeoutMs)
      : undefined
    const onAbort = (): void => { controller.abort(options.signal?.reason) }
    if (options.signal?.aborted === true) onAbort()
    options.signal?.addEventListener('abort', onAbort, { once: true })
    const sendOptions: SendOptions = {
      signal: controller.signal,
      // 2026-07-28 over HTTP: closing the request's stream is the cancellation; elsewhere it is said.
      cancel: this.generation === 'modern' && channel.kind === 'http' ? 'close' : 'notify'
    }
    if (headers !== undefined) sendOptions.headers = headers
    if (options.signal !== undefined) sendOptions.cancellable = true
    try {
      return resultOf(await channel.request(message, sendOptions))
    } finally {
      clearTimeout(timer)
      options.signal?.removeEventListener('abort', onAbort)
    }
  }

  /** Answers what the server asks: `elicitation/create`, `sampling/createMessage`, `roots/list` (and `ping`). */
  private async answer (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { onElicit, onSample, onListRoots } = this.settings
    switch (method) {
      case 'elicitation/create':
        if (onElicit !== undefined) return { ...await onElicit(params as Parameters<typeof onElicit>[0]) }
        break
      case 'sampling/createMessage':
        if (onSample !== undefined) return { ...await onSample(params as Parameters<typeof onSample>[0]) }
        break
      case 'roots/list':
        if (onListRoots !== undefined) return { ...await onListRoots() }
        break
      case 'ping':
        return {}
    }
    throw new McpError(ErrorCode.MethodNotFound, `The client has no handler for ${method.slice(0, 128)}`)
  }

  private learnTools (tools: unknown[]): void {
    for (const tool of tools) {
      if (isRecord(tool) && typeof tool.name === 'string') this.mirrors.set(tool.name, mirroredParamsOf(tool.inputSchema))
    }
  }

  /** Lists the tools once when a tool's mirrored parameters are not known yet (what a host would have done first). */
  private async learnMirrors (name: string, options: RequestOptions): Promise<void> {
    if (this.mirrors.has(name)) return
    let cursor: unknown
    do {
      const page = await this.call('tools/list', cursor === undefined ? {} : { cursor }, { signal: options.signal, timeoutMs: options.timeoutMs })
      cursor = page.nextCursor
    } while (typeof cursor === 'string' && !this.mirrors.has(name))
    // An unknown tool stays unknown: its call gets the server's own error.
    if (!this.mirrors.has(name)) this.mirrors.set(name, [])
  }

  private channelOf (): Channel {
    /* c8 ignore next: attach() comes first, always */
    if (this.channel === undefined) throw new Error('no channel attached')
    return this.channel
  }
}

/** The result of a response, or its error thrown as an McpError. */
function resultOf (response: JsonRpcResponse): Record<string, unknown> {
  if ('error' in response) throw new McpError(response.error.code, response.error.message, response.error.data)
  return response.result
}

/** The server's identity on a 2026-07-28 result. */
export function serverInfoOf (result: Record<string, unknown>): Record<string, unknown> | undefined {
  const meta = result._meta
  return isRecord(meta) && isRecord(meta[META_SERVER_INFO]) ? meta[META_SERVER_INFO] : undefined
}
