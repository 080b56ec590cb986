// One measured load of MCP requests over Streamable HTTP, either generation, for the runners
// written after run.js (catalog.js, hello.js): sessions opened first on 2025-11-25 (none on a
// stateless server), requests as the official clients send them (clients/mcp-http.js), one
// checked probe, then autocannon through measurePostedCalls. `sampleMemory`: the server's RSS is
// read over IPC every 250 ms during the measured load, and its peak returned as `peakRss`.
import { measurePostedCalls } from './posted-calls.js'
import { pool } from '../clients/sse.js'
import { legacyRequest, modernRequest, openLegacySession, postAgent } from '../clients/mcp-http.js'

export async function measureMcpCalls (server, { generation, method, params, isAnswer, connections, duration, warmup, counted = false, sampleMemory = false }) {
  let headersOf
  let bodyOf
  if (generation === '2026') {
    const request = modernRequest(method, params)
    headersOf = () => request.headers
    bodyOf = request.bodyOf
  } else {
    const agent = postAgent(8)
    const sessions = await pool(connections, 8, () => openLegacySession(server.url, { agent }))
    agent.destroy()
    headersOf = (i) => sessions[i].headers
    bodyOf = legacyRequest(method, params).bodyOf
  }
  // One checked answer first: a server that cannot serve this generation fails here, not in the load.
  const probe = await fetch(`${server.url}/mcp`, { method: 'POST', headers: headersOf(0), body: bodyOf(0) })
  const text = await probe.text()
  if (!isAnswer(probe.status, text)) throw new Error(`the probe ${method} answered ${probe.status}: ${text.slice(0, 200)}`)
  let peakRss = 0
  let sampler
  if (sampleMemory) {
    const sample = async () => {
      try {
        peakRss = Math.max(peakRss, (await server.usage()).mem.rss)
      } catch {}
    }
    sampler = setInterval(sample, 250)
  }
  try {
    const figures = await measurePostedCalls({ server, connections, duration, warmup, path: '/mcp', headersOf, bodyOf, isAnswer, counted })
    if (sampleMemory) figures.peakRss = Math.max(peakRss, (await server.usage()).mem.rss)
    return figures
  } finally {
    clearInterval(sampler)
  }
}
