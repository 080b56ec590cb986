import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { principalKey, type Principal } from '../principal.js'
import { isRecord } from '../../util/is-record.js'

/**
 * The `requestState` of MCP 2026-07-28 multi-round-trip requests: what a
 * handler was told in earlier rounds travels through the client and comes
 * back with the retry. The client is not trusted with it (spec: "MUST treat
 * requestState as an attacker-controlled input"), so the state is signed with
 * HMAC-SHA256 and bound to who asked, what they asked and until when:
 *
 *   token = "1." base64url(payload JSON) "." base64url(HMAC(key, binding + payload))
 *
 * The binding (principal identity, method, digest of the request's params) is
 * not written into the token: it is recomputed from the retry, so a state
 * replayed by another principal, on another method or with other arguments
 * fails the same MAC check as a modified one. The payload is readable by the
 * client; it holds nothing the client did not send (its own answers) besides
 * digests and an expiry.
 */

/** An answer the handler used: the digest of the question it answered and the client's result. */
export interface StoredAnswer {
  question: string
  result: Record<string, unknown>
}

export interface RequestStatePayload {
  /** Answers from every earlier round, by input key: clients send only the latest round's. */
  answers: ReadonlyMap<string, StoredAnswer>
  /** The questions of the round this state ends, by input key: what the retry may answer. */
  asked: ReadonlyMap<string, string>
}

/** What a state is bound to; recomputed from each retry. */
export interface RequestStateBinding {
  principal: Principal | undefined
  method: string
  /** {@link requestDigest} of the request's params. */
  paramsDigest: string
}

export interface RequestStateOptions {
  /** HMAC key, at least 32 characters; random per server instance when unset. */
  secret?: string | undefined
  /** Lifetime of a state, in milliseconds. */
  ttlMs?: number | undefined
  /** Largest state issued or accepted, in bytes. */
  maxBytes?: number | undefined
}

/** Defaults of the `requestState` option (the schema in src/schemas/request-state.ts uses these). */
export const REQUEST_STATE_DEFAULTS = { ttlMs: 600_000, maxBytes: 65_536 } as const

const VERSION = '1'
const MAC_BYTES = 32
const BASE64URL = /^[A-Za-z0-9_-]+$/

function invalidState (reason: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid requestState: ${reason}`)
}

/** The principal's identity (method, kind, issuer, subject), never its credential; `null` without auth. */
function identity (principal: Principal | undefined): string {
  return principal === undefined ? 'null' : principalKey(principal)
}

export class RequestStateCodec {
  readonly ttlMs: number
  readonly maxBytes: number
  private readonly key: Buffer
  private readonly now: () => number

  constructor (options: RequestStateOptions = {}, now: () => number = Date.now) {
    // A per-instance key keeps single-process servers safe with no setup; replicas behind a
    // load balancer need the same `secret` on every one, or a retry landing elsewhere is refused.
    this.key = options.secret === undefined ? randomBytes(32) : Buffer.from(options.secret, 'utf8')
    this.ttlMs = options.ttlMs ?? REQUEST_STATE_DEFAULTS.ttlMs
    this.maxBytes = options.maxBytes ?? REQUEST_STATE_DEFAULTS.maxBytes
    this.now = now
  }

  /** Signs a state; throws (-32603) when it would exceed `maxBytes`, which only the server can fix. */
  seal (payload: RequestStatePayload, binding: RequestStateBinding): string {
    // Object.fromEntries defines own properties, so a key like "__proto__" stays a plain key.
    const answers = Object.fromEntries([...payload.answers].map(([key, answer]) => [key, [answer.question, answer.result]]))
    const asked = Object.fromEntries(payload.asked)
    const body = Buffer.from(JSON.stringify({ x: this.now() + this.ttlMs, a: answers, p: asked })).toString('base64url')
    const token = `${VERSION}.${body}.${this.mac(body, binding).toString('base64url')}`
    if (token.length > this.maxBytes) {
      throw new McpError(ErrorCode.InternalError, `The answers collected so far exceed requestState.maxBytes (${this.maxBytes} bytes)`)
    }
    return token
  }

  /**
   * Verifies a state a client sent back and returns what it carries. Every
   * failure is -32602 with a fixed sentence: the reason class, never the
   * expected value or anything about the binding.
   */
  open (token: unknown, binding: RequestStateBinding): RequestStatePayload {
    if (typeof token !== 'string' || token === '') throw invalidState('it must be the string the server sent')
    if (token.length > this.maxBytes) throw invalidState(`it is longer than ${this.maxBytes} bytes`)
    const parts = token.split('.')
    const [version, body, mac] = parts
    if (parts.length !== 3 || version !== VERSION || body === undefined || mac === undefined || !BASE64URL.test(body) || !BASE64URL.test(mac)) {
      throw invalidState('it is malformed')
    }
    const expected = this.mac(body, binding)
    const given = Buffer.from(mac, 'base64url')
    if (given.length !== MAC_BYTES || !timingSafeEqual(given, expected)) {
      throw invalidState('it was not issued for this request (it was modified, or issued for other arguments or another caller)')
    }
    const decoded = this.decode(body)
    if (this.now() > decoded.expiresAt) throw invalidState('it has expired; send the request again without requestState and inputResponses')
    return decoded.payload
  }

  private mac (body: string, binding: RequestStateBinding): Buffer {
    const context = JSON.stringify(['mcp-request-state', VERSION, identity(binding.principal), binding.method, binding.paramsDigest])
    return createHmac('sha256', this.key).update(context).update('\n').update(body).digest()
  }

  // Only reached with a valid MAC, so the payload is ours; checked anyway, as a state signed by a
  // different release with the same secret could have another shape.
  private decode (body: string): { expiresAt: number, payload: RequestStatePayload } {
    let raw: unknown
    try {
      raw = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
    } catch {
      throw invalidState('it is malformed')
    }
    if (!isRecord(raw) || typeof raw.x !== 'number' || !isRecord(raw.a) || !isRecord(raw.p)) throw invalidState('it is malformed')
    // Maps, not objects: keys are client-visible strings and "__proto__" must stay a key.
    const answers = new Map<string, StoredAnswer>()
    for (const [key, entry] of Object.entries(raw.a)) {
      if (!Array.isArray(entry) || typeof entry[0] !== 'string' || !isRecord(entry[1])) throw invalidState('it is malformed')
      answers.set(key, { question: entry[0], result: entry[1] })
    }
    const asked = new Map<string, string>()
    for (const [key, question] of Object.entries(raw.p)) {
      if (typeof question !== 'string') throw invalidState('it is malformed')
      asked.set(key, question)
    }
    return { expiresAt: raw.x, payload: { answers, asked } }
  }
}
