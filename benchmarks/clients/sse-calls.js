// tools/call round trips over legacy SSE: S initialized sessions, autocannon POSTs `add` calls to
// the sessions' message URLs (one autocannon connection pinned to one session), and the answers
// are read from the sessions' event streams. A call's latency runs from the moment autocannon
// builds its POST to the moment its answer arrives on the stream; a POST that was accepted (2xx)
// and whose answer never arrived is lost.
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'
import { openSseSession, pool, postAgent } from './sse.js'
import { percentiles } from '../lib/stats.js'
import { measureCalls } from '../lib/window.js'

export async function runSseCalls ({ server, sessions: count, duration, warmup, headersFor = () => ({}), log = () => {} }) {
  const posts = postAgent(16)
  const sent = new Map() // id -> time sent
  let latencies = []
  let replies = 0
  let errors = 0
  const onMessage = (data) => {
    const message = JSON.parse(data)
    const at = sent.get(message.id)
    if (at === undefined) return
    sent.delete(message.id)
    if (message.result === undefined || message.result.content?.[0]?.text !== '3') errors++
    replies++
    latencies.push(performance.now() - at)
  }
  const sessions = await pool(count, 16, (i) => openSseSession(server.url, { postAgent: posts, headers: headersFor(i), onMessage }))
  posts.destroy()

  let nextId = 1
  let accepted = 0
  const lostCandidates = new Set()
  const load = (seconds) => new Promise((resolve, reject) => {
    let client = 0
    const instance = autocannon({
      url: server.url,
      connections: count,
      pipelining: 1,
      duration: seconds,
      setupClient (c) {
        const session = sessions[client % count]
        const headers = { 'content-type': 'application/json', ...headersFor(client % count) }
        client++
        let current = 0
        c.setRequests([{
          method: 'POST',
          path: session.messagePath,
          headers,
          setupRequest (req) {
            current = nextId++
            req.body = `{"jsonrpc":"2.0","id":${current},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
            sent.set(current, performance.now())
            return req
          },
          onResponse (status) {
            if (status >= 200 && status < 300) {
              accepted++
              if (sent.has(current)) lostCandidates.add(current)
            } else {
              errors++
            }
          }
        }])
      }
    }, (error, result) => error ? reject(error) : resolve(result))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: devNull })
  })
  const drain = async (ms = 3000) => {
    const until = performance.now() + ms
    while (performance.now() < until) {
      let waiting = 0
      for (const id of lostCandidates) if (sent.has(id)) waiting++
      if (waiting === 0) break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  if (warmup > 0) {
    await load(warmup)
    await drain()
  }
  sent.clear()
  lostCandidates.clear()
  latencies = []
  replies = 0
  errors = 0
  accepted = 0
  const window = await measureCalls(server, () => load(duration), drain)
  const result = window.result
  let lost = 0
  for (const id of lostCandidates) if (sent.has(id)) lost++
  for (const session of sessions) session.close()
  return {
    ...window.figures(replies),
    latency: percentiles(latencies),
    postLatency: { p50: result.latency.p50, p99: result.latency.p99 },
    postErrors: result.non2xx + result.errors,
    accepted,
    lost,
    errors
  }
}

const devNull = { write () {}, isTTY: false }
