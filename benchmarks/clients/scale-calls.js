// The scale-out workloads. Both talk to the instances directly (no balancer process, whose CPU
// would blur the sum): the client itself spreads the requests, as a round-robin balancer would.
//
// - runSpreadCalls: Streamable HTTP tools/call where every call names the next of S sessions and
//   goes to one of N autocannons, one per instance, so each session's calls land on every
//   instance. Run on one instance without scale-out too (same client), and on N independent
//   instances with each session's calls kept on its own instance, for the ratios. On a cluster it
//   also reports Redis commands per call (INFO commandstats over the measured window). With `rate`
//   the same, paced at that many calls/s instead of as fast as the machine goes.
// - runForwardedPosts: one legacy SSE session whose stream is held by instance 0; POSTs go in
//   turn to instance 0 (the owner executes them) and to instance 1 (it forwards them to the owner
//   over the bus); each call's time runs from its POST to its answer on the stream.
import { performance } from 'node:perf_hooks'
import { openStreamableSession } from './streamable-calls.js'
import { openSseSession, pool, post, postAgent } from './sse.js'
import { measurePostedCalls } from '../lib/posted-calls.js'
import { percentiles } from '../lib/stats.js'

export async function runSpreadCalls ({ server, sessions: count, duration, warmup, rate }) {
  const urls = server.urls ?? [server.url]
  // Independent instances (no shared engine) know only their own sessions: session i lives on
  // instance i mod N and its calls go there (a sticky balancer). With scale-out, anywhere.
  const sticky = server.scaled === false
  const agent = postAgent(16)
  const sessions = await pool(count, 16, (i) => openStreamableSession(sticky ? urls[i % urls.length] : urls[0], { agent }))
  agent.destroy()
  const headers = sessions.map((session) => ({ 'content-type': 'application/json', ...session.headers }))
  const own = urls.map((_, k) => headers.filter((_, i) => i % urls.length === k))
  // The window's first and last CPU reads carry Redis's counters too (lib/cluster.js).
  const reads = []
  const watched = Object.assign(Object.create(server), { usage: async () => { const usage = await server.usage(); reads.push(usage); return usage } })
  const value = await measurePostedCalls({
    server: watched,
    urls,
    connections: count,
    duration,
    warmup,
    path: '/mcp',
    headersOf: (i) => headers[i],
    headersOfCall: sticky ? (id, k) => own[k][id % own[k].length] : (id) => headers[id % count],
    rate,
    bodyOf: (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`
  })
  const [first, last] = [reads.at(-2), reads.at(-1)]
  if (first?.redisCommands !== undefined) {
    value.redisCommandsPerCall = (last.redisCommands - first.redisCommands) / value.calls
    value.redisCpuMicrosPerCall = (last.redisMicros - first.redisMicros) / value.calls
    value.instancesCpuMicrosPerCall = (last.instancesMicros - first.instancesMicros) / value.calls
    value.redisCommandsInWindow = Object.fromEntries(Object.entries(last.perCommand)
      .map(([name, calls]) => [name, calls - (first.perCommand[name] ?? 0)])
      .filter(([, calls]) => calls > 0))
  }
  return value
}

export async function runForwardedPosts ({ server, calls, warmupCalls = 200 }) {
  const [owner, other] = server.urls
  const agent = postAgent(4)
  const waiting = new Map()
  const session = await openSseSession(owner, {
    postAgent: agent,
    onMessage: (data) => {
      // Timed here: the answer may come before the POST's own 202 does.
      const at = performance.now()
      const message = JSON.parse(data)
      waiting.get(message.id)?.({ message, at })
      waiting.delete(message.id)
    }
  })
  let errors = 0
  const call = async (url, id) => {
    const answered = new Promise((resolve) => { waiting.set(id, resolve) })
    const started = performance.now()
    const sent = await post(url, session.messagePath, `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`, { agent })
    if (sent.status !== 202) {
      waiting.delete(id)
      errors++
      return undefined
    }
    const { message, at } = await answered
    if (message.result?.content?.[0]?.text !== '3') errors++
    return at - started
  }
  const direct = []
  const forwarded = []
  try {
    let id = 1
    for (let i = 0; i < warmupCalls; i++) await call(i % 2 === 0 ? owner : other, id++)
    errors = 0
    // Alternating, so that drift in the machine's speed touches both alike.
    for (let i = 0; i < calls; i++) {
      const ms = await call(i % 2 === 0 ? owner : other, id++)
      if (ms !== undefined) (i % 2 === 0 ? direct : forwarded).push(ms)
    }
  } finally {
    session.close()
    agent.destroy()
  }
  const toOwner = percentiles(direct)
  const viaOther = percentiles(forwarded)
  return { calls: direct.length + forwarded.length, errors, toOwner, viaOther, addedP50: viaOther.p50 - toOwner.p50 }
}
