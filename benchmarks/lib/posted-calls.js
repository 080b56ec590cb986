import autocannon from 'autocannon'
import { measureCalls } from './window.js'

/**
 * The measured load of an HTTP call workload where every call is one POST answered on its own
 * response (Streamable HTTP on 2025 sessions, 2026-07-28 stateless): a warm-up, then autocannon
 * for `duration` seconds over `connections` keep-alive connections, every answer checked for the
 * sum of `add(1, 2)` (or by `isAnswer(status, body)`, for other calls). `headersOf(i)` gives
 * connection i its headers (its session), `bodyOf(id)` the JSON-RPC request with that id.
 *
 * Several instances of one deployment (`urls`, a scale-out cluster): one autocannon per instance,
 * run together, the connections shared out between them; `headersOfCall(id, instance)`, when
 * given, picks each request's headers (its session) instead: any session, so that one session's
 * calls land on every instance (a balancer without stickiness), or one of the instance's own.
 *
 * `rate` (calls/s over all instances) paces the load instead of saturating the machine: autocannon's
 * `overallRate`, shared out evenly between the instances.
 *
 * `counted` (one instance only): the measured load is a number of calls, not a time, sized from
 * the warm-up's rate to last about `duration` seconds (at least 3 calls per connection). Every
 * call sent is answered inside the CPU window, so a slow server (tens of ms per call) is not
 * charged for calls cut off when the clock stops, which a timed window of a few seconds at 32
 * connections would do.
 */
export async function measurePostedCalls ({ server, connections, duration, warmup, path, headersOf, bodyOf, urls = [server.url], headersOfCall, rate, isAnswer = isSum, counted = false }) {
  let ok = 0
  let bad = 0
  let sample = ''
  let nextId = 1
  let client = 0
  const loadOne = (url, index, share, seconds, amount) => new Promise((resolve, reject) => {
    const instance = autocannon({
      url,
      connections: share,
      pipelining: 1,
      // Counted: a slow server's answer is late, not lost (autocannon gives up after 10 s by default).
      ...(amount === undefined ? { duration: seconds } : { amount }),
      ...(counted ? { timeout: 60 } : {}),
      ...(rate === undefined ? {} : { overallRate: Math.max(1, Math.round(rate / urls.length)) }),
      setupClient (c) {
        c.setRequests([{
          method: 'POST',
          path,
          headers: headersOf(client++ % connections),
          setupRequest (req) {
            const id = nextId++
            req.body = bodyOf(id)
            if (headersOfCall !== undefined) req.headers = headersOfCall(id, index)
            return req
          },
          onResponse (status, body) {
            // JSON or SSE, the answer must carry the result.
            if (isAnswer(status, body)) ok++
            else { bad++; if (sample === '') sample = `${status} ${String(body).slice(0, 200)}` }
          }
        }])
      }
    }, (error, result) => error ? reject(error) : resolve(result))
    autocannon.track(instance, { renderProgressBar: false, renderResultsTable: false, renderLatencyTable: false, outputStream: { write () {} } })
  })
  const load = async (seconds, amount) => {
    const shares = urls.map((_, i) => Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0))
    const results = await Promise.all(urls.map((url, i) => loadOne(url, i, shares[i], seconds, amount)))
    return results.length === 1 ? results[0] : mergeResults(results)
  }
  let amount
  let started = performance.now()
  if (warmup > 0) await load(warmup)
  if (counted) {
    // Too few answers in the warm-up to know the rate: two more calls per connection, timed.
    if (ok < connections * 2) {
      ok = 0
      started = performance.now()
      await load(undefined, connections * 2)
    }
    const perSecond = ok / ((performance.now() - started) / 1000)
    amount = Math.max(connections * 3, Math.round(perSecond * duration))
  }
  ok = 0
  bad = 0
  const window = await measureCalls(server, () => load(duration, amount))
  const result = window.result
  return {
    ...window.figures(ok),
    latency: { average: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    errors: bad + result.errors,
    sample
  }
}

/** The answer to `add(1, 2)`, in a JSON body or an SSE event. */
function isSum (status, body) {
  return status === 200 && body.includes('"result"') && body.includes('"text":"3"')
}

/**
 * Several autocannon results as one: errors summed; latency percentiles, which cannot be merged
 * exactly from summaries, as the median of the instances' p50 and the worst of the others.
 */
function mergeResults (results) {
  const p50s = results.map((r) => r.latency.p50).sort((a, b) => a - b)
  return {
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    latency: {
      p50: p50s[Math.floor(p50s.length / 2)],
      p90: Math.max(...results.map((r) => r.latency.p90)),
      p99: Math.max(...results.map((r) => r.latency.p99)),
      max: Math.max(...results.map((r) => r.latency.max))
    }
  }
}
