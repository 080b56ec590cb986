import type { FastifyRequest } from 'fastify'
import { InvalidMessageError, MissingSessionError, NotAcceptableError, UnsupportedProtocolVersionError } from '../../errors.js'
import { isSupportedVersion } from '../../jsonrpc/versions.js'
import { MAX_SESSION_ID_LENGTH } from '../../util/ids.js'

/** Our event ids are short (`<stream>_<n>`); a longer Last-Event-ID is not one of them. */
const MAX_EVENT_ID_LENGTH = 64

/** What the client's `Accept` lets us answer a POSTed request with. */
export interface Acceptable {
  readonly json: boolean
  readonly sse: boolean
}

/**
 * Reads `Accept`. MCP asks clients to list both `application/json` and
 * `text/event-stream`; we are liberal and answer in whichever of the two the
 * client takes (wildcards count, `q=0` refuses). No `Accept` at all means
 * anything, as HTTP says, so `curl` works without ceremony.
 */
export function acceptableOf (request: FastifyRequest): Acceptable {
  const header = request.headers.accept
  if (header === undefined) return ANYTHING
  let acceptable = readAccept.get(header)
  if (acceptable === undefined) {
    acceptable = parseAccept(header)
    // A client sends the same Accept on every request, so a handful of values cover everyone; a
    // client varying it on purpose only empties the memo, never grows it.
    if (readAccept.size >= ACCEPT_MEMO_SIZE) readAccept.clear()
    readAccept.set(header, acceptable)
  }
  return acceptable
}

const ANYTHING: Acceptable = Object.freeze({ json: true, sse: true })

/** Accept values read so far: parsing one cost ~1.5 µs, on every POST. */
const readAccept = new Map<string, Acceptable>()
const ACCEPT_MEMO_SIZE = 64

function parseAccept (header: string): Acceptable {
  if (header.trim() === '') return ANYTHING
  const result = { json: false, sse: false }
  for (const range of header.toLowerCase().split(',')) {
    const [type = '', ...params] = range.split(';').map((part) => part.trim())
    if (params.some((param) => /^q=0(\.0*)?$/.test(param))) continue
    if (type === 'application/json' || type === 'application/*' || type === '*/*') result.json = true
    if (type === 'text/event-stream' || type === 'text/*' || type === '*/*') result.sse = true
  }
  return Object.freeze(result)
}

/** POST: 406 unless the client takes JSON or an event stream. */
export function requirePostAccept (request: FastifyRequest): Acceptable {
  const acceptable = acceptableOf(request)
  if (!acceptable.json && !acceptable.sse) throw new NotAcceptableError('Accept must include application/json or text/event-stream')
  return acceptable
}

/** GET: 406 unless the client takes an event stream (the only thing GET answers with). */
export function requireGetAccept (request: FastifyRequest): void {
  if (!acceptableOf(request).sse) throw new NotAcceptableError('Accept must include text/event-stream')
}

/** A single-valued header, or undefined when absent; repeated headers are a malformed request. */
function single (request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name]
  /* c8 ignore next: Node joins repeated request headers into one string; the type still allows arrays */
  if (Array.isArray(value)) throw new InvalidMessageError(`the ${name} header must not be repeated`)
  return value
}

/** `Mcp-Session-Id`, required (400 when missing); undefined when it cannot be one of ours (unknown: 404). */
export function requireSessionId (request: FastifyRequest): string | undefined {
  const id = single(request, 'mcp-session-id')
  if (id === undefined || id === '') throw new MissingSessionError('the Mcp-Session-Id header is required')
  return id.length > MAX_SESSION_ID_LENGTH ? undefined : id
}

/**
 * `MCP-Protocol-Version`: 400 when present and not a version we speak. When
 * absent the session's negotiated version is assumed (the caller decides). A
 * supported value other than the negotiated one is accepted: the session keeps
 * what `initialize` agreed, and clients (the official conformance suite among
 * them) do send such values on an established session.
 */
export function checkProtocolVersion (request: FastifyRequest): string | undefined {
  const version = single(request, 'mcp-protocol-version')
  if (version === undefined) return undefined
  if (!isSupportedVersion(version)) {
    // Named in the error only when it looks like a version: never echo arbitrary header bytes.
    throw new UnsupportedProtocolVersionError(/^[\w.-]{1,32}$/.test(version) ? version : '(malformed)')
  }
  return version
}

/** `Last-Event-ID`, when the client is resuming a stream. */
export function lastEventIdOf (request: FastifyRequest): string | undefined {
  const id = single(request, 'last-event-id')
  if (id === undefined || id === '') return undefined
  if (id.length > MAX_EVENT_ID_LENGTH) throw new InvalidMessageError('Last-Event-ID is not an event of this session')
  return id
}
