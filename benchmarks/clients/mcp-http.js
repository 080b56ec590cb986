// Requests as the official clients send them over Streamable HTTP, for the load clients.
//
// 2026-07-28 (what @modelcontextprotocol/client 2.4.0 sends with `versionNegotiation: { mode:
// { pin: '2026-07-28' } }`, captured on the wire): no session; every POST carries
// `MCP-Protocol-Version`, `Mcp-Method` and, for a named call, `Mcp-Name`; the body's
// `params._meta` carries the protocol version, the client info and the client capabilities;
// members in the client's order (method, params, jsonrpc, id).
//
// 2025-11-25: initialize, notifications/initialized, then requests with `Mcp-Session-Id` (when the
// server gave one: a stateless server gives none) and `MCP-Protocol-Version`.
import { post, postAgent } from './sse.js'

export const MODERN_VERSION = '2026-07-28'
export const LEGACY_VERSION = '2025-11-25'
const ACCEPT = 'application/json, text/event-stream'

/**
 * What a host application's client declares: roots and elicitation (the official client sends
 * what its app declares; an empty object is the SDK's default, and costs a server less to read).
 */
export const CLIENT_CAPABILITIES = { roots: { listChanged: true }, elicitation: {} }
const META = JSON.stringify({
  'io.modelcontextprotocol/protocolVersion': MODERN_VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'bench-client', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': CLIENT_CAPABILITIES
})

/** The `Mcp-Name` source of the methods that have one. */
const NAMED = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' }

/**
 * A 2026-07-28 request: `{ headers, bodyOf(id) }`. The body is built from two precomputed halves,
 * so a load client pays one concatenation per request.
 */
export function modernRequest (method, params = {}) {
  const headers = { 'content-type': 'application/json', accept: ACCEPT, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': method }
  const source = NAMED[method]
  if (source !== undefined) headers['mcp-name'] = String(params[source])
  const inner = JSON.stringify(params)
  const paramsJson = inner === '{}' ? `{"_meta":${META}}` : `${inner.slice(0, -1)},"_meta":${META}}`
  const head = `{"method":${JSON.stringify(method)},"params":${paramsJson},"jsonrpc":"2.0","id":`
  return { headers, bodyOf: (id) => `${head}${id}}` }
}

/** A 2025-11-25 request body maker, for a session's headers from {@link openLegacySession}. */
export function legacyRequest (method, params = {}) {
  const head = `{"method":${JSON.stringify(method)},"params":${JSON.stringify(params)},"jsonrpc":"2.0","id":`
  return { bodyOf: (id) => `${head}${id}}` }
}

/**
 * Opens a 2025-11-25 session: initialize, then notifications/initialized. Resolves with the
 * headers of its later requests (no `Mcp-Session-Id` when the server is stateless).
 */
export async function openLegacySession (baseUrl, { agent, path = '/mcp' } = {}) {
  const base = { accept: ACCEPT }
  const init = await post(baseUrl, path, `{"method":"initialize","params":{"protocolVersion":"${LEGACY_VERSION}","capabilities":${JSON.stringify(CLIENT_CAPABILITIES)},"clientInfo":{"name":"bench-client","version":"1.0.0"}},"jsonrpc":"2.0","id":0}`, { agent, headers: base })
  if (init.status !== 200 || !init.body.includes('"result"')) {
    throw new Error(`POST initialize answered ${init.status} ${init.headers['content-type']}: ${init.body.slice(0, 200)}`)
  }
  const sessionId = init.headers['mcp-session-id']
  const headers = { 'content-type': 'application/json', ...base, 'mcp-protocol-version': LEGACY_VERSION, ...(typeof sessionId === 'string' ? { 'mcp-session-id': sessionId } : {}) }
  const done = await post(baseUrl, path, '{"method":"notifications/initialized","jsonrpc":"2.0"}', { agent, headers })
  if (done.status >= 300) throw new Error(`POST notifications/initialized answered ${done.status}`)
  return { sessionId, headers }
}

export { postAgent }
