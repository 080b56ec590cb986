import type { FastifyRequest } from 'fastify'

/** What replaces a redacted value. */
export const REDACTED = '[REDACTED]'

/** Query parameters a client might put a credential under, rightly or not. */
const CREDENTIAL_PARAMS = ['access_token', 'api_key', 'apikey', 'key']

/**
 * The query parameters redacted from logged URLs for this auth configuration: the usual
 * credential names always, plus, for API keys, the configured `queryParam` and the header name
 * (a client may wrongly put the key under either).
 */
export function credentialParams (auth: { type: string, options: object } | undefined): string[] {
  const names = [...CREDENTIAL_PARAMS]
  if (auth?.type === 'apikey') {
    const { queryParam, headerName } = auth.options as { queryParam?: string, headerName?: string }
    if (queryParam !== undefined) names.unshift(queryParam)
    if (headerName !== undefined) names.push(headerName, headerName.toLowerCase())
  }
  return [...new Set(names)]
}

/**
 * `url` with the value of every `name` query parameter (or of each name of a list) replaced by `[REDACTED]`. The name is
 * compared after percent-decoding, so `?%61pi_key=...` is redacted like `?api_key=...`. Used for
 * request logs: Fastify's request log carries the full URL, and an API key accepted in the query
 * string (or a bearer token a client wrongly put there) must never reach a log line.
 */
export function redactQueryParam (url: string, name: string | readonly string[]): string {
  const q = url.indexOf('?')
  if (q === -1) return url
  const hash = url.indexOf('#', q)
  const end = hash === -1 ? url.length : hash
  const pairs = url.slice(q + 1, end).split('&').map((pair) => {
    const eq = pair.indexOf('=')
    const rawName = eq === -1 ? pair : pair.slice(0, eq)
    const decoded = decodeName(rawName)
    return (typeof name === 'string' ? decoded === name : name.includes(decoded)) ? `${rawName}=${REDACTED}` : pair
  })
  return `${url.slice(0, q + 1)}${pairs.join('&')}${url.slice(end)}`
}

function decodeName (raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll('+', ' '))
  } catch {
    return raw
  }
}

/**
 * Fastify's default `req` log serializer, with the credential query parameters redacted. Give it
 * to the MCP routes as `logSerializers: { req }` (a route-level option): the incoming-request
 * log line of those routes then never shows the credential.
 */
export function requestLogSerializer (params: string | readonly string[]): (request: FastifyRequest) => Record<string, unknown> {
  return (request) => ({
    method: request.method,
    url: redactQueryParam(request.url, params),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort
  })
}
