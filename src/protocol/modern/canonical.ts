import { createHash } from 'node:crypto'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'

// Deep enough for any real tool arguments or elicitation schema; a client cannot make the
// server recurse without bound.
const MAX_DEPTH = 64

/**
 * JSON with object keys sorted at every level, so that two values equal as
 * JSON hash the same whatever order their keys arrived in. Arrays keep their
 * order; `undefined` members vanish as in `JSON.stringify`.
 */
export function canonicalJson (value: unknown): string {
  return write(value, 0)
}

function write (value: unknown, depth: number): string {
  if (depth > MAX_DEPTH) throw new McpError(ErrorCode.InvalidParams, `Invalid params: nested deeper than ${MAX_DEPTH} levels`)
  if (Array.isArray(value)) return `[${value.map((item) => item === undefined ? 'null' : write(item, depth + 1)).join(',')}]`
  if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>
    const members: string[] = []
    for (const key of Object.keys(record).sort()) {
      if (record[key] !== undefined) members.push(`${JSON.stringify(key)}:${write(record[key], depth + 1)}`)
    }
    return `{${members.join(',')}}`
  }
  return JSON.stringify(value) ?? 'null'
}

/** SHA-256 of the canonical JSON, base64url; `chars` truncates (16 chars = 96 bits). */
export function digest (value: unknown, chars = 43): string {
  return createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, chars)
}

/**
 * The parameters that identify a request across its rounds: everything but
 * `_meta` (version, capabilities, progress token and trace context may change
 * between attempts) and the MRTR fields themselves.
 */
export function requestDigest (params: Record<string, unknown>): string {
  const salient: Record<string, unknown> = {}
  for (const key of Object.keys(params)) {
    if (key !== '_meta' && key !== 'inputResponses' && key !== 'requestState') salient[key] = params[key]
  }
  return digest(salient)
}
