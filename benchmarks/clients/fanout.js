// SSE fan-out: N connected, initialized legacy SSE sessions; the server broadcasts one
// notification at a time (asked over its control channel) and this client records when every
// session has it. Sessions are opened in steps (1,000, then up to 5,000, then 10,000) so that one
// ramp gives every size, the session-opening rate and the idle memory per session.
import { performance } from 'node:perf_hooks'
import { openSseSession, pool, postAgent } from './sse.js'

const PAD = 'x'.repeat(120)

/**
 * @param {object} o
 * @param {import('../lib/proc.js').ServerHandle} o.server
 * @param {number[]} o.sizes ascending session counts
 * @param {number} o.broadcasts measured broadcasts per size
 * @param {number} [o.warmupBroadcasts] broadcasts per size before those (checked for losses, not timed)
 * @param {number} o.concurrency sessions being opened at once
 * @param {number} o.timeoutMs how long to wait for a broadcast's last delivery
 */
export async function runFanout ({ server, sizes, broadcasts, warmupBroadcasts = 2, concurrency, timeoutMs, log = () => {} }) {
  const posts = postAgent(Math.min(concurrency, 128))
  const sessions = []
  let current = null // the broadcast being measured: { seq, received, last, done }
  let duplicates = 0
  let stray = 0
  const onMessage = (data, session) => {
    if (!data.includes('notifications/message')) return
    const seq = JSON.parse(data).params?.data?.seq
    if (current === null || seq !== current.seq) { stray++; return }
    if (session.lastSeq === seq) { duplicates++; return }
    session.lastSeq = seq
    current.received++
    current.last = performance.now()
    if (current.received === current.expected) current.done()
  }

  const broadcastOnce = async (seq) => {
    const expected = sessions.filter((s) => !s.closed).length
    const before = await server.usage()
    let done
    const finished = new Promise((resolve) => { done = resolve })
    current = { seq, received: 0, expected, last: 0, done }
    const clientBefore = process.cpuUsage()
    const t0 = performance.now()
    const ack = await server.command('broadcast', {
      notification: { method: 'notifications/message', params: { level: 'info', data: { seq, pad: PAD } } }
    })
    // Wait for the last delivery, or give up after timeoutMs (what is missing then is lost).
    let timer
    await Promise.race([finished, new Promise((resolve) => { timer = setTimeout(resolve, timeoutMs) })])
    clearTimeout(timer)
    const ms = (current.received === expected ? current.last : performance.now()) - t0
    const client = process.cpuUsage(clientBefore)
    // A late duplicate or a stray delivery would show here.
    await new Promise((resolve) => setTimeout(resolve, 50))
    const after = await server.usage()
    const outcome = {
      seq,
      expected,
      reached: ack.reached,
      received: current.received,
      lost: expected - current.received,
      ms,
      serverCallMs: ack.ms,
      deliveriesPerSec: current.received / (ms / 1000),
      cpuMicros: after.cpuMicros - before.cpuMicros,
      clientCpuMicros: client.user + client.system
    }
    current = null
    return outcome
  }

  const results = []
  await server.gcMemory()
  const idle = await server.gcMemory()
  let seq = 0
  for (const size of sizes) {
    const toOpen = size - sessions.length
    if (size === sizes[sizes.length - 1]) await server.windowStart()
    const cpuBefore = await server.usage()
    const started = performance.now()
    let failures = 0
    const opened = await pool(toOpen, concurrency, async () => {
      try {
        return await openSseSession(server.url, { postAgent: posts, onMessage })
      } catch (error) {
        failures++
        if (failures <= 3) log(`    session failed: ${error.message}`)
        return null
      }
    })
    const openMs = performance.now() - started
    const cpuAfter = await server.usage()
    if (size === sizes[sizes.length - 1]) await server.windowEnd(`open-${sessions.length}-to-${size}`)
    for (const session of opened) if (session !== null) sessions.push(session)
    const connected = sessions.filter((s) => !s.closed).length
    const mem = await server.gcMemory()
    const row = {
      size,
      connected,
      failures,
      opened: toOpen - failures,
      openPerSec: (toOpen - failures) / (openMs / 1000),
      openCpuMicrosPerSession: (cpuAfter.cpuMicros - cpuBefore.cpuMicros) / Math.max(1, toOpen - failures),
      rssPerSession: (mem.rss - idle.rss) / connected,
      heapPerSession: (mem.heapUsed + mem.external - idle.heapUsed - idle.external) / connected,
      rss: mem.rss,
      warmupLost: 0,
      broadcasts: []
    }
    // Warm-up broadcasts first (their deliveries are checked, their times not used): the first
    // broadcasts at a new size run colder code and a growing heap, in every server alike.
    const last = size === sizes[sizes.length - 1]
    for (let b = 0; b < warmupBroadcasts + broadcasts; b++) {
      const measured = b >= warmupBroadcasts
      if (measured && last && b === warmupBroadcasts) await server.windowStart()
      const outcome = await broadcastOnce(++seq)
      if (measured) row.broadcasts.push(outcome)
      else row.warmupLost += outcome.lost
    }
    if (last) await server.windowEnd(`broadcast-${size}`)
    results.push(row)
    log(`    ${size} sessions: ${row.openPerSec.toFixed(0)} opened/s, ${(row.rssPerSession / 1024).toFixed(1)} KB RSS/session, broadcast ${row.broadcasts.map((b) => `${b.ms.toFixed(1)} ms${b.lost > 0 ? ` (${b.lost} lost)` : ''}`).join(', ')}`)
  }
  for (const session of sessions) session.close()
  posts.destroy()
  return { results, duplicates, stray }
}
