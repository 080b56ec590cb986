#!/usr/bin/env node
// An A/B of two builds of ours that can resolve a few per cent, where the HTTP workloads of
// `npm run bench` cannot (their CPU per call moves ±10-20 % from run to run on a shared VM): both
// builds are loaded into this one process, each serves tools/call through its stdio runner over
// in-memory streams (no socket, no kernel), pipelined 256 deep (AB_DEPTH), every answer checked
// on its own line, and batches of calls alternate between them
// (A B B A A B ...), so that a slow spell of the host lands on both alike. CPU per call is
// process.cpuUsage() across a batch; the report gives each build's median and the median of the
// per-pair ratios.
//
//   node --expose-gc benchmarks/ab-dispatch.js <A>/dist/index.js <B>/dist/index.js [pairs=60] [batch=2000]
//
// AB_GENERATION=2026 sends MCP 2026-07-28 requests instead (no initialize; each call carries
// `_meta` with the protocol version, client info and capabilities, as the official 2026 client
// sends it): the modern ladder, the throwaway session, the multi-round-trip wrapper and the
// result shaping of src/protocol, without HTTP.
//
// Uses one internal module of each build (the stdio runner), and the server's
// core: it measures builds of this repository, not arbitrary packages.
import { PassThrough, Writable } from 'node:stream'
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO } from './servers/shared.js'
import { median } from './lib/stats.js'

const [pathA, pathB, pairsArg = '60', batchArg = '2000'] = process.argv.slice(2)
if (pathA === undefined || pathB === undefined) {
  process.stderr.write('usage: node benchmarks/ab-dispatch.js <A dist/index.js> <B dist/index.js> [pairs] [batch]\n')
  process.exit(2)
}
const pairs = Number(pairsArg)
const batch = Number(batchArg)
/** Calls written at once, then answered, before the next window (AB_DEPTH; below maxInflightRequests). */
const DEPTH = Number(process.env.AB_DEPTH ?? 256)
const modern = process.env.AB_GENERATION === '2026'
if (!modern && (process.env.AB_GENERATION ?? '2025') !== '2025') throw new Error('AB_GENERATION must be 2025 or 2026')
const META = '{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"ab","version":"1.0.0"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true},"elicitation":{}}}'
const call = modern
  ? (id) => `{"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2},"_meta":${META}},"jsonrpc":"2.0","id":${id}}`
  : (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}`

/** One build, serving over in-memory streams; `run(n)` sends n pipelined calls and resolves when all are answered. */
async function serve (path) {
  const url = pathToFileURL(resolve(path))
  const { MCPServer } = await import(url.href)
  // The runner's module moved with the layout change (src/stdio.ts -> src/transports/stdio/runner.ts):
  // either build may be the older one.
  const { StdioRunner } = await import(new URL('./transports/stdio/runner.js', url).href)
    .catch(async () => await import(new URL('./stdio.js', url).href))
  const server = new MCPServer(SERVER_INFO)
  server.tool({ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }, async (args) => addResult(args))
  const input = new PassThrough()
  let waiting = 0
  let done = () => {}
  let wrong = 0
  let partial = ''
  const right = modern ? (line) => line.includes('"text":"3"') && line.includes('"resultType":"complete"') : (line) => line.includes('"text":"3"')
  const output = new Writable({
    write (chunk, _encoding, callback) {
      // Every answer is checked on its own line: a refusal ("too many in flight") is a wrong answer.
      const lines = (partial + chunk.toString('utf8')).split('\n')
      partial = lines.pop()
      for (const line of lines) {
        waiting--
        if (!right(line) && !line.includes('"protocolVersion"')) wrong++
      }
      if (waiting === 0) done()
      callback()
    }
  })
  // The server's core is built in its constructor; the runner is what `start()` would attach to stdin.
  const runner = new StdioRunner(server.core, { input, output, maxMessageBytes: 1 << 20 })
  runner.start()
  let nextId = 1
  const send = async (lines) => {
    waiting += lines.filter((line) => line.includes('"id"')).length
    const answered = new Promise((resolve) => { done = resolve })
    input.write(lines.join('\n') + '\n')
    await answered
  }
  // 2026-07-28 has no handshake: the first call pins the process to the modern revision.
  if (!modern) {
    await send([
      '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"ab","version":"1"}}}'
    ])
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  }
  return {
    path,
    wrong: () => wrong,
    async run (n) {
      // Windows of DEPTH pipelined calls, each answered before the next: a client may have only
      // maxInflightRequests (1,000 by default) in flight, and the calls past it would be refusals.
      const windows = []
      for (let sent = 0; sent < n; sent += DEPTH) {
        const lines = new Array(Math.min(DEPTH, n - sent))
        for (let i = 0; i < lines.length; i++) lines[i] = call(nextId++)
        windows.push(lines)
      }
      // Run with --expose-gc: each batch starts from a clean heap, not paying for the other build's garbage.
      globalThis.gc?.()
      const before = process.cpuUsage()
      for (const lines of windows) await send(lines)
      const used = process.cpuUsage(before)
      return (used.user + used.system) / n
    }
  }
}

const a = await serve(pathA)
const b = await serve(pathB)
// Warm-up: JIT both before anything counts.
for (let i = 0; i < 5; i++) { await a.run(batch); await b.run(batch) }
const perCall = { a: [], b: [] }
const ratios = []
for (let pair = 0; pair < pairs; pair++) {
  // Alternate who goes first, so that neither always runs right after a GC of the other.
  const [first, second] = pair % 2 === 0 ? [a, b] : [b, a]
  const x = await first.run(batch)
  const y = await second.run(batch)
  const [ca, cb] = first === a ? [x, y] : [y, x]
  perCall.a.push(ca)
  perCall.b.push(cb)
  ratios.push(ca / cb)
}
const sorted = [...ratios].sort((p, q) => p - q)
const q = (f) => sorted[Math.min(sorted.length - 1, Math.floor(f * sorted.length))]
const us = (v) => `${v.toFixed(2)} µs`
process.stdout.write([
  `A ${pathA}: ${us(median(perCall.a))} CPU per call (median of ${pairs} batches of ${batch})`,
  `B ${pathB}: ${us(median(perCall.b))} CPU per call`,
  `A / B: ${median(ratios).toFixed(3)} (median of per-pair ratios; middle half ${q(0.25).toFixed(3)}..${q(0.75).toFixed(3)})`,
  `wrong answers: A ${a.wrong()}, B ${b.wrong()}`
].join('\n') + '\n')
process.exit(0)
