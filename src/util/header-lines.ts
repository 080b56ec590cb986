import type { FastifyRequest } from 'fastify'

/**
 * Every line of header `name` (lower case) as it arrived, in order. Node folds repeated lines
 * into one value (`a, b` for most headers; the first one only for `Host`), which hides a header
 * sent twice; the raw lines do not. Read from `rawHeaders`, which `inject` fills in too.
 */
export function headerLines (request: FastifyRequest, name: string): string[] {
  const raw = request.raw.rawHeaders
  const lines: string[] = []
  for (let i = 0; i < raw.length; i += 2) {
    const key = raw[i] as string
    // The length first: most names differ in it, and lower-casing each one cost more than the rest of the scan.
    if (key.length === name.length && key.toLowerCase() === name) lines.push(raw[i + 1] as string)
  }
  return lines
}
