// stdio round trips against a server child's stdin/stdout: sequential (one call, wait for its
// answer, next) and pipelined (write K calls in one go, then read K answers).
import { performance } from 'node:perf_hooks'
import { percentiles } from '../lib/stats.js'
import { measureCalls } from '../lib/window.js'

class LineReader {
  constructor (stream) {
    this.buffer = ''
    this.waiters = []
    this.lines = []
    stream.setEncoding('utf8')
    stream.on('data', (chunk) => {
      let text = this.buffer + chunk
      let newline = text.indexOf('\n')
      while (newline !== -1) {
        const line = text.slice(0, newline)
        text = text.slice(newline + 1)
        if (line.length > 0) this.push(line)
        newline = text.indexOf('\n')
      }
      this.buffer = text
    })
  }

  push (line) {
    const waiter = this.waiters.shift()
    if (waiter !== undefined) waiter(line)
    else this.lines.push(line)
  }

  next () {
    if (this.lines.length > 0) return Promise.resolve(this.lines.shift())
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  /** Resolves after `count` lines, counting answers that carry the sum. */
  take (count) {
    return new Promise((resolve) => {
      let ok = 0
      let seen = 0
      const check = (line) => { if (line.includes('"text":"3"')) ok++ }
      while (seen < count && this.lines.length > 0) { check(this.lines.shift()); seen++ }
      if (seen === count) return resolve(ok)
      const more = (line) => {
        check(line)
        if (++seen === count) resolve(ok)
        else this.waiters.push(more)
      }
      this.waiters.push(more)
    })
  }
}

const call = (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}\n`

async function initialize (server, reader) {
  const { stdin } = server.child
  stdin.write('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"1.0.0"}}}\n')
  const answer = await reader.next()
  if (!answer.includes('"result"')) throw new Error(`initialize: ${answer.slice(0, 200)}`)
  stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
}

/** Sequential for `seconds`: returns calls/s, latency percentiles, server CPU per call. */
async function sequential (server, reader, seconds, measure) {
  const { stdin } = server.child
  const latencies = []
  let ok = 0
  let id = 1
  const work = async () => {
    const until = performance.now() + seconds * 1000
    while (performance.now() < until) {
      // 64 calls between clock reads keeps the loop cheap without overshooting the window.
      for (let i = 0; i < 64; i++) {
        const t0 = performance.now()
        stdin.write(call(id++))
        const line = await reader.next()
        latencies.push(performance.now() - t0)
        if (line.includes('"text":"3"')) ok++
      }
    }
  }
  if (!measure) return await work()
  const window = await measureCalls(server, work)
  return { ...window.figures(ok), latency: percentiles(latencies), errors: latencies.length - ok }
}

/** Pipelined for `seconds`: K calls written at once, then K answers read; repeat. */
async function pipelined (server, reader, seconds, depth, measure) {
  const { stdin } = server.child
  const batches = []
  let ok = 0
  let total = 0
  let id = 1_000_000
  const work = async () => {
    const until = performance.now() + seconds * 1000
    while (performance.now() < until) {
      let chunk = ''
      for (let i = 0; i < depth; i++) chunk += call(id++)
      const t0 = performance.now()
      stdin.write(chunk)
      ok += await reader.take(depth)
      total += depth
      batches.push(performance.now() - t0)
    }
  }
  if (!measure) return await work()
  const window = await measureCalls(server, work)
  return { ...window.figures(ok), batchLatency: percentiles(batches), errors: total - ok }
}

export async function runStdio ({ server, mode, duration, warmup, depth }) {
  const reader = new LineReader(server.child.stdout)
  await initialize(server, reader)
  if (mode === 'sequential') {
    if (warmup > 0) await sequential(server, reader, warmup, false)
    return await sequential(server, reader, duration, true)
  }
  if (warmup > 0) await pipelined(server, reader, warmup, depth, false)
  return await pipelined(server, reader, duration, depth, true)
}
