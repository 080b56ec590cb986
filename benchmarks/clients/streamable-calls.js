// tools/call round trips over Streamable HTTP: S sessions initialized (POST initialize, the
// `mcp-session-id` answer header, POST notifications/initialized), then autocannon POSTs `add`
// calls to /mcp, one connection pinned to one session, and checks every answer's body. A server
// may answer with JSON or with a one-event SSE stream; both count when they carry the result.
import { INITIALIZED, PROTOCOL_VERSION, initializeRequest, pool, post, postAgent } from './sse.js'
import { measurePostedCalls } from '../lib/posted-calls.js'

const ACCEPT = 'application/json, text/event-stream'

export async function openStreamableSession (baseUrl, { agent, path = '/mcp', headers = {} }) {
  const base = { accept: ACCEPT, ...headers }
  const init = await post(baseUrl, path, initializeRequest(1), { agent, headers: base })
  const sessionId = init.headers['mcp-session-id']
  if (init.status !== 200 || typeof sessionId !== 'string' || !init.body.includes('"result"')) {
    throw new Error(`POST initialize answered ${init.status} ${init.headers['content-type']} session=${sessionId}: ${init.body.slice(0, 200)}`)
  }
  const session = { 'mcp-session-id': sessionId, 'mcp-protocol-version': PROTOCOL_VERSION }
  const done = await post(baseUrl, path, INITIALIZED, { agent, headers: { ...base, ...session } })
  if (done.status >= 300) throw new Error(`POST notifications/initialized answered ${done.status}`)
  return { sessionId, headers: { ...base, ...session } }
}

export async function runStreamableCalls ({ server, sessions: count, duration, warmup, path = '/mcp', headersFor = () => ({}) }) {
  const agent = postAgent(16)
  const sessions = await pool(count, 16, (i) => openStreamableSession(server.url, { agent, path, headers: headersFor(i) }))
  agent.destroy()
  return await measurePostedCalls({
    server,
    connections: count,
    duration,
    warmup,
    path,
    headersOf: (i) => ({ 'content-type': 'application/json', ...sessions[i].headers }),
    bodyOf: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
  })
}
