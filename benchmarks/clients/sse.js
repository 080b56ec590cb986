// Client side of legacy SSE sessions: the event stream on a bare socket (raw-sse.js), POSTs
// through a shared node:http keep-alive agent. Cheap matters: the fan-out holds 10,000 of these
// in one process that shares two cores with the server under test.
import http from 'node:http'
import { RawSseSession } from './raw-sse.js'

/** POSTs go through a bounded keep-alive pool. */
export function postAgent (maxSockets = 64) {
  return new http.Agent({ keepAlive: true, maxSockets, maxFreeSockets: maxSockets })
}

/** POSTs a body and resolves with { status, headers, body }. */
export function post (baseUrl, path, body, { agent, headers = {} } = {}) {
  const base = typeof baseUrl === 'string' ? new URL(baseUrl) : baseUrl
  const payload = typeof body === 'string' ? body : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname,
      port: base.port,
      path,
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...headers }
    }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { text += chunk })
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(payload)
  })
}

// The revision the 2025 rows name: a 2025-11-25 session (the version check of every POST included).
export const PROTOCOL_VERSION = '2025-11-25'

export function initializeRequest (id) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'bench', version: '1.0.0' } }
  }
}

export const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}'

/**
 * Opens and initializes one legacy SSE session: GET, endpoint event, POST initialize, its answer
 * on the stream, POST notifications/initialized. Leaves `session.onMessage` to the caller after.
 */
export async function openSseSession (baseUrl, { postAgent, headers = {}, onMessage }) {
  let initialized
  const answered = new Promise((resolve, reject) => { initialized = { resolve, reject } })
  answered.catch(() => {}) // awaited below; never an unhandled rejection if the POST fails first
  const session = new RawSseSession(baseUrl, {
    headers,
    onMessage: (data) => {
      if (data.includes('"id":"init"') || data.includes('"id": "init"')) initialized.resolve(data)
    }
  })
  await session.open()
  const timer = setTimeout(() => initialized.reject(new Error('no answer to initialize in time')), 30000)
  const sent = await post(baseUrl, session.messagePath, initializeRequest('init'), { agent: postAgent, headers })
  if (sent.status >= 300) {
    clearTimeout(timer)
    session.close()
    throw new Error(`POST initialize answered ${sent.status}: ${sent.body.slice(0, 200)}`)
  }
  await answered
  clearTimeout(timer)
  const done = await post(baseUrl, session.messagePath, INITIALIZED, { agent: postAgent, headers })
  if (done.status >= 300) throw new Error(`POST notifications/initialized answered ${done.status}`)
  session.onMessage = onMessage ?? (() => {})
  return session
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function pool (count, concurrency, task) {
  let next = 0
  const results = new Array(count)
  const worker = async () => {
    while (next < count) {
      const i = next++
      results[i] = await task(i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker))
  return results
}
