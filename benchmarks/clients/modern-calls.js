// tools/call round trips in MCP 2026-07-28 over Streamable HTTP: no initialize, no session. Every
// POST stands alone, as the official 2026 client sends it (clients/mcp-http.js): the protocol
// version, client info and client capabilities in params._meta, and the MCP-Protocol-Version,
// Mcp-Method and Mcp-Name headers; autocannon holds `connections` keep-alive connections and
// checks every answer's body. The figures compare with streamable-calls (the same call on
// 2025-11-25 sessions) and with the hand-written 2026 baseline, server CPU per call above all.
import { measurePostedCalls } from '../lib/posted-calls.js'
import { modernRequest } from './mcp-http.js'

export async function runModernCalls ({ server, connections, duration, warmup, path = '/mcp' }) {
  const { headers, bodyOf } = modernRequest('tools/call', { name: 'add', arguments: { a: 1, b: 2 } })
  // One probe first: a server without the 2026-07-28 leg answers 400 here, and is "not available".
  const probe = await fetch(`${server.url}${path}`, { method: 'POST', headers, body: bodyOf(0) })
  const probeBody = await probe.text()
  if (probe.status !== 200 || !probeBody.includes('"text":"3"') || !probeBody.includes('"resultType":"complete"')) {
    throw new Error(`a 2026-07-28 tools/call answered ${probe.status}, not found: ${probeBody.slice(0, 160)}`)
  }
  return await measurePostedCalls({ server, connections, duration, warmup, path, headersOf: () => headers, bodyOf })
}
