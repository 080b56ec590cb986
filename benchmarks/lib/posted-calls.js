import autocannon from 'autocannon'
import { measureCalls } from './window.js'

/**
 * The measured load of an HTTP call workload where every call is one POST answered on its own
 * response (Streamable HTTP on 2025 sessions, 2026-07-28 stateless): a warm-up, then autocannon
 * for `duration` seconds over `connections` keep-alive connections, every answer checked for the
 * sum of `add(1, 2)`. `headersOf(i)` gives connection i its headers (its session), `bodyOf(id)`
 * the JSON-RPC request with that id.
 */
export async function measurePostedCalls ({ server, connections, duration, warmup, path, headersOf, bodyOf }) {
  let ok = 0
  let bad = 0
  let sample = ''
  const load = (seconds) => new Promise((resolve, reject) => {
    let nextId = 1
    let client = 0
    const instance = autocannon({
      url: server.url,
      connections,
      pipelining: 1,
      duration: seconds,
      setupClient (c) {
        c.setRequests([{
          method: 'POST',
          path,
          headers: headersOf(client++ % connections),
          setupRequest (req) {
            req.body = bodyOf(nextId++)
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
