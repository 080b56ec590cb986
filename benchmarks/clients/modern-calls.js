// tools/call round trips in MCP 2026-07-28 over Streamable HTTP: no initialize, no session. Every
// POST stands alone, with the protocol version and client capabilities in params._meta and the
// headers the revision requires (MCP-Protocol-Version, Mcp-Method, Mcp-Name); autocannon holds
// `connections` keep-alive connections and checks every answer's body. The figures compare with
// streamable-calls (the same call on 2025-11-25 sessions), server CPU per call above all.
import { measurePostedCalls } from '../lib/posted-calls.js'

const META = '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{}}'
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'add'
}

export async function runModernCalls ({ server, connections, duration, warmup, path = '/mcp' }) {
  // One probe first: a server without the 2026-07-28 leg answers 400 here, and is "not available".
  const probe = await fetch(`${server.url}${path}`, { method: 'POST', headers: HEADERS, body: `{"jsonrpc":"2.0","id":0,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":${META}}}` })
  const probeBody = await probe.text()
  if (probe.status !== 200 || !probeBody.includes('"text":"3"')) throw new Error(`a 2026-07-28 tools/call answered ${probe.status}, not found: ${probeBody.slice(0, 160)}`)
  return await measurePostedCalls({
    server,
    connections,
    duration,
    warmup,
    path,
    headersOf: () => HEADERS,
    bodyOf: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":${META}}}`
  })
}
