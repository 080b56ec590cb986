// The scale-out part of benchmarks/RESULTS.md: what N instances on one redis-server cost per call
// against one instance without scale-out, how many Redis commands a call sends, and what a legacy
// SSE POST forwarded to the stream's instance adds; with the targets of issue 12 (must-show 8).
const f = (value, digits = 1) => value === undefined || value === null || Number.isNaN(value) ? 'n/a' : Number(value).toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** The section and the targets, or undefined when the scale workloads did not run. */
export function scaleReport (results, config) {
  const calls = results['scale-calls']
  const paced = results['scale-paced']
  const forwarded = results['scale-forwarded']
  if (calls === undefined && paced === undefined && forwarded === undefined) return undefined
  const md = []
  const targets = []
  const n = config.scaleInstances
  const failed = (entry, name) => entry?.unavailable?.[name] ?? entry?.errors?.[name]?.join('; ') ?? 'no successful run'
  for (const [entry, how] of [[calls, 'as fast as the machine goes'], [paced, `paced at ${config.scaleRate} calls/s`]]) {
    if (entry === undefined) continue
    md.push(...callsTable(entry, n, failed))
    const one = entry.median.ours
    const many = entry.median.cluster
    const r = one === undefined || many === undefined ? undefined : many.cpuMicrosPerCall / one.cpuMicrosPerCall
    targets.push({ what: `Scale-out: summed CPU per Streamable tools/call at N = ${n} ≤ 1.10x one instance without scale-out (${how})`, measured: `${f(many?.cpuMicrosPerCall)} vs ${f(one?.cpuMicrosPerCall)} µs = ${r === undefined ? 'n/a' : `${f(r, 2)}x`}`, met: r === undefined ? undefined : r <= 1.1 })
    if (entry === calls) targets.push({ what: 'Scale-out: Redis commands per call in steady state ≤ 0.01', measured: many === undefined ? `not measured: ${failed(entry, 'cluster')}` : f(many.redisCommandsPerCall, 4), met: many === undefined ? undefined : many.redisCommandsPerCall <= 0.01 })
  }
  if (forwarded !== undefined) {
    const v = forwarded.median.cluster
    md.push(`## ${forwarded.title}`, '', `(${f(forwarded.seconds, 0)} s for all runs)`, '')
    if (v === undefined) {
      md.push(`Not available: ${failed(forwarded, 'cluster')}`, '')
    } else {
      md.push('| POSTed to | p50 ms | p90 ms | p99 ms | max ms |', '|---|---:|---:|---:|---:|')
      md.push(`| the stream's instance | ${f(v.toOwner.p50, 3)} | ${f(v.toOwner.p90, 3)} | ${f(v.toOwner.p99, 3)} | ${f(v.toOwner.max, 3)} |`)
      md.push(`| another instance (forwarded) | ${f(v.viaOther.p50, 3)} | ${f(v.viaOther.p90, 3)} | ${f(v.viaOther.p99, 3)} | ${f(v.viaOther.max, 3)} |`)
      md.push('', `Per-run added p50, ms: ${forwarded.runs.cluster.map((run) => f(run.addedP50, 3)).join(', ')}; errors ${f(v.errors, 0)}; other processes ${f(v.otherLoad, 2)} cores. A call's time runs from its POST to its answer on the session's stream.`, '')
    }
    targets.push({ what: 'Scale-out: a legacy POST to a non-owner instance adds ≤ 0.3 ms p50', measured: v === undefined ? `not measured: ${failed(forwarded, 'cluster')}` : `${f(v.viaOther.p50, 3)} vs ${f(v.toOwner.p50, 3)} ms = +${f(v.addedP50, 3)} ms`, met: v === undefined ? undefined : v.addedP50 <= 0.3 })
  }
  return { markdown: md.join('\n'), targets }
}

/** One calls workload (saturated or paced): a row per deployment, and scale-out's own share. */
function callsTable (entry, n, failed) {
  const md = [`## ${entry.title}`, '', `(${f(entry.seconds, 0)} s for all runs)`, '']
  md.push('| deployment | calls/s | p50 ms | p99 ms | CPU µs/call (summed) | of which redis-server | per-run CPU µs/call | Redis commands per call | errors | other processes, cores |')
  md.push('|---|---:|---:|---:|---:|---:|---|---:|---:|---:|')
  for (const [name, label] of [['ours', 'one instance, no scale-out'], ['independent', `${n} instances, no scale-out (each session's calls on its own instance)`], ['cluster', `${n} instances + redis-server (any call anywhere)`], ['redis-cluster', `${n} instances + a 3-primary Redis Cluster (any call anywhere)`]]) {
    const v = entry.median[name]
    if (v === undefined && entry.runs[name] === undefined && name === 'redis-cluster') continue
    if (v === undefined) {
      md.push(`| ${label} | not available: ${String(failed(entry, name)).replace(/\|/g, '/').slice(0, 300)} |||||||||`)
      continue
    }
    const runs = entry.runs[name].map((r) => f(r.cpuMicrosPerCall)).join(', ')
    md.push(`| ${label} | ${f(v.callsPerSec, 0)} | ${f(v.latency?.p50, 2)} | ${f(v.latency?.p99, 2)} | **${f(v.cpuMicrosPerCall)}** | ${v.redisCpuMicrosPerCall === undefined ? '—' : f(v.redisCpuMicrosPerCall, 2)} | ${runs} | ${v.redisCommandsPerCall === undefined ? '—' : f(v.redisCommandsPerCall, 4)} | ${f(v.errors ?? 0, 0)} | ${f(v.otherLoad, 2)} |`)
  }
  for (const [name, what] of [['cluster', 'redis-server'], ['redis-cluster', 'the Redis Cluster (summed over its primaries)']]) {
    const window = entry.runs[name]?.at(-1)?.redisCommandsInWindow
    if (window !== undefined) md.push('', `Commands ${what} ran in the last run's measured window, by command: ${Object.entries(window).map(([command, count]) => `${command} ${count}`).join(', ') || 'none'}.`)
  }
  md.push('', 'CPU per call for several instances is the sum over every instance (and redis-server, INFO cpu) across the measured window, divided by the calls answered; the client spreads the calls itself (no balancer process). The middle row separates what splitting the same load over N processes costs on this machine (each wakes up for fewer calls at a time, and N servers share 2 cores with the client) from what scale-out adds: compare the last row with it.', '')
  const alone = entry.median.independent
  const many = entry.median.cluster
  if (alone !== undefined && many !== undefined) md.push(`Scale-out's own cost: ${f(many.cpuMicrosPerCall)} vs ${f(alone.cpuMicrosPerCall)} µs per call = ${f(many.cpuMicrosPerCall / alone.cpuMicrosPerCall, 2)}x the same ${n} processes without it.`, '')
  return md
}
