import { McpError } from '../jsonrpc/errors.js'
import { isRecord } from '../util/is-record.js'
import { ZeroCountSweeper } from '../util/zero-counts.js'

/**
 * Bounds on what one client can make a session hold (issue 10). The option
 * schemas take their defaults from here, and so does a core built without
 * options (tests, embedders), so each default is written once.
 */
export interface ProtocolLimits {
  /** Longest resource URI accepted from a client, in UTF-8 bytes. */
  readonly maxUriBytes: number
  /** Distinct resource URIs one session may be subscribed to. */
  readonly maxSubscriptions: number
  /** Client requests one session may have being handled at once. */
  readonly maxInflightRequests: number
  /** Bytes of the client requests being handled at once, all clients together. */
  readonly maxInflightBytes: number
  /** Bytes of the requests of one client being handled at once (see `Caller.client`). */
  readonly maxInflightBytesPerClient: number
  /** Bytes of JSON an `initialize` may declare (capabilities and clientInfo), which its session keeps. */
  readonly maxInitializeBytes: number
  /** Bytes of the resource URIs the sessions of one client are subscribed to (see `Caller.client`). */
  readonly maxSubscriptionBytesPerClient: number
  /** Bytes of the resource URIs subscribed to, all sessions together. */
  readonly maxSubscriptionBytes: number
}

const MiB = 1024 * 1024

export const DEFAULT_LIMITS: ProtocolLimits = Object.freeze({
  maxUriBytes: 8192,
  maxSubscriptions: 100,
  maxInflightRequests: 1000,
  maxInflightBytes: 512 * MiB,
  maxInflightBytesPerClient: 32 * MiB,
  maxInitializeBytes: 16_384,
  maxSubscriptionBytesPerClient: 4 * MiB,
  maxSubscriptionBytes: 64 * MiB
})

export function resolveLimits (options: Partial<ProtocolLimits>): ProtocolLimits {
  return Object.freeze({
    maxUriBytes: options.maxUriBytes ?? DEFAULT_LIMITS.maxUriBytes,
    maxSubscriptions: options.maxSubscriptions ?? DEFAULT_LIMITS.maxSubscriptions,
    maxInflightRequests: options.maxInflightRequests ?? DEFAULT_LIMITS.maxInflightRequests,
    maxInflightBytes: options.maxInflightBytes ?? DEFAULT_LIMITS.maxInflightBytes,
    maxInflightBytesPerClient: options.maxInflightBytesPerClient ?? DEFAULT_LIMITS.maxInflightBytesPerClient,
    maxInitializeBytes: options.maxInitializeBytes ?? DEFAULT_LIMITS.maxInitializeBytes,
    maxSubscriptionBytesPerClient: options.maxSubscriptionBytesPerClient ?? DEFAULT_LIMITS.maxSubscriptionBytesPerClient,
    maxSubscriptionBytes: options.maxSubscriptionBytes ?? DEFAULT_LIMITS.maxSubscriptionBytes
  })
}

/** Whether `text` takes more than `maxBytes` bytes in UTF-8, without encoding it when the answer is plain. */
export function exceedsBytes (text: string, maxBytes: number): boolean {
  // A UTF-16 code unit takes 1 to 3 UTF-8 bytes (a surrogate pair, two units, takes 4).
  if (text.length > maxBytes) return true
  if (text.length * 3 <= maxBytes) return false
  return Buffer.byteLength(text, 'utf8') > maxBytes
}

/** Which bound a {@link ByteLedger} refused on. */
export type LedgerBound = 'overall' | 'perClient'

/**
 * Bytes held on behalf of clients, per client and all together, against a bound on each: what
 * keeps one client from holding more than its share of something every client needs, and all of
 * them from holding more than the process can. Each client's count is forgotten when it drops to
 * zero: kept at 0 in the map (see {@link ZeroCountSweeper}), and swept once the map has grown.
 */
export class ByteLedger {
  readonly maxOverall: number
  readonly maxPerClient: number
  private held = 0
  private readonly perClient = new Map<string, number>()
  private readonly zeros = new ZeroCountSweeper()

  constructor (maxOverall: number, maxPerClient: number) {
    this.maxOverall = maxOverall
    this.maxPerClient = maxPerClient
  }

  /** Bytes held now, all clients together. */
  get total (): number {
    return this.held
  }

  /** Bytes `client` holds now. */
  of (client: string): number {
    return this.perClient.get(client) ?? 0
  }

  /** Takes `bytes` for `client`; when that would cross a bound, takes nothing and says which. */
  take (client: string, bytes: number): LedgerBound | undefined {
    const mine = this.perClient.get(client) ?? 0
    if (mine + bytes > this.maxPerClient) return 'perClient'
    if (this.held + bytes > this.maxOverall) return 'overall'
    if (mine === 0) this.zeros.beforeAdd(this.perClient)
    this.perClient.set(client, mine + bytes)
    this.held += bytes
    return undefined
  }

  /**
   * Counts `bytes` for `client` whatever the bounds: bytes already held that the ledger learns of
   * late (a session's state refreshed from a store other instances write too). The next
   * {@link take} of that client or of everyone is refused until enough is given back.
   */
  hold (client: string, bytes: number): void {
    const mine = this.perClient.get(client) ?? 0
    if (mine === 0) this.zeros.beforeAdd(this.perClient)
    this.perClient.set(client, mine + bytes)
    this.held += bytes
  }

  /** Gives back what {@link take} took. */
  give (client: string, bytes: number): void {
    const mine = this.perClient.get(client)
    if (mine !== undefined) this.perClient.set(client, Math.max(0, mine - bytes))
    this.held -= bytes
  }
}

/**
 * A refusal past a configured bound: `data.limit` names the option (`maxInitializeBytes`,
 * `listen.maxStreamsPerPrincipal`...), `data.max` its value. The client reads which bound it met;
 * the dispatcher counts every such answer in `fastify_mcp.server.limit.refusals` under that name.
 */
export function limitError (code: number, message: string, limit: string, max: number): McpError {
  return new McpError(code, message, { limit, max })
}

/** The bound an error refused on (see {@link limitError}); undefined for any other error. */
export function limitOf (error: McpError): string | undefined {
  const data = error.data
  return isRecord(data) && typeof data.limit === 'string' ? data.limit : undefined
}
