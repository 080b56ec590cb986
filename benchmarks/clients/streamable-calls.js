// tools/call round trips over Streamable HTTP: S sessions initialized (POST initialize, the
// `mcp-session-id` answer header, POST notifications/initialized), then autocannon POSTs `add`
// calls to /mcp, one connection pinned to one session, and checks every answer's body. A server
// may answer with JSON or with a one-event SSE stream; both count when they carry the result.
import autocannon from 'autocannon'
import { INITIALIZED, PROTOCOL_VERSION, initializeRequest, pool, post, postAgent } from './sse.js'
import { measureCalls } from '../lib/window.js'

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
  let ok = 0
  let bad = 0
  let sample = ''
  const load = (seconds) => new Promise((resolve, reject) => {
    let nextId = 1
    let client = 0
    const instance = autocannon({
      url: server.url,
      connections: count,
      pipelining: 1,
      duration: seconds,
      setupClient (c) {
        const session = sessions[client++ % count]
        c.setRequests([{
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', ...session.headers },
          setupRequest (req) {
            req.body = `{"jsonrpc":"2.0","id":${nextId++},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
            return req
          },
          onResponse (status, body) {
            // JSON or SSE, the answer must carry the sum.
            if (status === 200 && body.includes('"result"') && body.includes('"text":"3"')) ok++
            else { bad++; if (sample === '') sample = `${status} ${String(body).slice(0, 200)}` }
          }
        }])
      }
    }, (error, result) => error ? reject(error) : resolve(result))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: { write () {} } })
  })
  if (warmup > 0) await load(warmup)
  ok = 0
  bad = 0
  const window = await measureCalls(server, () => load(duration))
  const result = window.result
  return {
    ...window.figures(ok),
    latency: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    errors: bad + result.errors,
    sample
  }
}
