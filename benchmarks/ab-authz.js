#!/usr/bin/env node
// The cost of authorization (issue 20) in one process, where a few per cent show: Streamable HTTP
// tools/call (a 2025 session, JSON answers) served by Fastify's inject() (the whole route: hooks,
// body parsing, the transport, the dispatcher; no socket), server CPU per call, four servers side
// by side, batches alternating in rotating order so that a slow spell of the host lands on all:
//
//   before      the build before authorization (<A>/dist/index.js)
//   none        this build, no rule, no middleware
//   rules50     this build, 50 tools under access rules (a predicate), the called one among them
//   middleware  this build, one pass-through middleware: async (op, next) => await next()
//
//   node --expose-gc benchmarks/ab-authz.js <before>/dist/index.js <after>/dist/index.js [rounds=40] [batch=400]
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import Fastify from 'fastify'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO } from './servers/shared.js'
import { median } from './lib/stats.js'

const [before, after, roundsArg = '40', batchArg = '400'] = process.argv.slice(2)
if (before === undefined || after === undefined) {
  process.stderr.write('usage: node --expose-gc benchmarks/ab-authz.js <before dist/index.js> <after dist/index.js> [rounds] [batch]\n')
  process.exit(2)
}
const rounds = Number(roundsArg)
const batch = Number(batchArg)

async function serve (path, setup) {
  const { default: mcp } = await import(pathToFileURL(resolve(path)).href)
  const app = Fastify()
  await app.register(mcp, SERVER_INFO)
  setup(app.mcp)
  await app.ready()
  const headers = { 'content-type': 'application/json', accept: 'application/json' }
  const init = await app.inject({ method: 'POST', url: '/mcp', headers, payload: { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ab', version: '1' } } } })
  const session = { ...headers, 'mcp-session-id': init.headers['mcp-session-id'], 'mcp-protocol-version': '2025-11-25' }
  const payload = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":2}}}'
  let wrong = 0
  return {
    wrong: () => wrong,
    async run (n) {
      globalThis.gc?.()
      const start = process.cpuUsage()
      const answers = []
      for (let i = 0; i < n; i++) answers.push(app.inject({ method: 'POST', url: '/mcp', headers: session, payload }))
      for (const answer of await Promise.all(answers)) if (!answer.body.includes('"text":"3"')) wrong++
      const used = process.cpuUsage(start)
      return (used.user + used.system) / n
    }
  }
}

const add = (server, extra = {}) => server.tool({ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema, ...extra }, async (args) => addResult(args))
const servers = {
  before: await serve(before, (server) => add(server)),
  none: await serve(after, (server) => add(server)),
  rules50: await serve(after, (server) => {
    const rule = { allow: (principal) => principal === undefined }
    for (let i = 0; i < 49; i++) server.tool({ name: `tool${i}`, inputSchema: AddSchema, auth: rule }, async (args) => addResult(args))
    add(server, { auth: rule })
  }),
  middleware: await serve(after, (server) => {
    add(server)
    server.use(async (_op, next) => await next())
  })
}
const names = Object.keys(servers)
for (let i = 0; i < 5; i++) for (const name of names) await servers[name].run(batch)
const perCall = Object.fromEntries(names.map((name) => [name, []]))
for (let round = 0; round < rounds; round++) {
  // Rotate who goes first, so that none always runs right after another's garbage.
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length]
    perCall[name].push(await servers[name].run(batch))
  }
}
const ratio = (name) => {
  const ratios = perCall[name].map((value, i) => value / perCall.before[i])
  const sorted = [...ratios].sort((p, q) => p - q)
  return `${median(ratios).toFixed(3)} (middle half ${sorted[Math.floor(sorted.length / 4)].toFixed(3)}..${sorted[Math.floor(sorted.length * 3 / 4)].toFixed(3)})`
}
const againstNone = (name) => median(perCall[name].map((value, i) => value / perCall.none[i])).toFixed(3)
process.stdout.write(names.map((name) => `${name.padEnd(10)} ${median(perCall[name]).toFixed(1)} µs CPU per call; / before ${name === 'before' ? '1' : ratio(name)}; / none ${againstNone(name)}; wrong ${servers[name].wrong()}`).join('\n') + '\n')
process.exit(0)
