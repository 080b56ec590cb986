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
//   none2       this build again, as `none`: the control, whose ratio to `none` is the noise floor
//
// On a shared machine a batch's CPU per call moves by tens of per cent with the neighbours' load;
// many small batches in rotation put each server through the same spells, and the ratio of the
// total CPU of all rounds (with the spread of that ratio over ten blocks of rounds) is what says
// a few per cent, where the median of per-round ratios is shown for comparison.
//
// The build loaded first shows ~2 % more CPU whatever it is (README, "A/B of two builds"): run it
// with `first` = before and = after, and take the geometric mean of the two ratios.
//
//   node --expose-gc benchmarks/ab-authz.js <before>/dist/index.js <after>/dist/index.js [rounds=1500] [batch=50] [first=before|after]
import { pathToFileURL } from 'node:url'
import { resolve } from 'node:path'
import Fastify from 'fastify'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO } from './servers/shared.js'
import { median } from './lib/stats.js'

const [before, after, roundsArg = '1500', batchArg = '50', first = 'before'] = process.argv.slice(2)
if (before === undefined || after === undefined) {
  process.stderr.write('usage: node --expose-gc benchmarks/ab-authz.js <before dist/index.js> <after dist/index.js> [rounds] [batch]\n')
  process.exit(2)
}
if (first !== 'before' && first !== 'after') {
  process.stderr.write(`first must be before or after, not ${first}\n`)
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
// Loaded (imported, and its server built) in this order: `first` decides whether the before build goes first.
const built = {}
if (first === 'before') built.before = await serve(before, (server) => add(server))
built.none = await serve(after, (server) => add(server))
const servers = {
  before: built.before ?? await serve(before, (server) => add(server)),
  none: built.none,
  rules50: await serve(after, (server) => {
    const rule = { allow: (principal) => principal === undefined }
    for (let i = 0; i < 49; i++) server.tool({ name: `tool${i}`, inputSchema: AddSchema, auth: rule }, async (args) => addResult(args))
    add(server, { auth: rule })
  }),
  middleware: await serve(after, (server) => {
    add(server)
    server.use(async (_op, next) => await next())
  }),
  none2: await serve(after, (server) => add(server))
}
const names = Object.keys(servers)
// Warm-up: 2000 calls each, so that every server runs optimized code before the first timed batch.
for (let i = 0; i < Math.ceil(2000 / batch); i++) for (const name of names) await servers[name].run(batch)
const perCall = Object.fromEntries(names.map((name) => [name, []]))
for (let round = 0; round < rounds; round++) {
  // Rotate who goes first, so that none always runs right after another's garbage.
  // A full collection per round (not per batch: it would cost more than the batches), so that no
  // server pays much of another's garbage; the rotation spreads what is left evenly.
  globalThis.gc?.()
  for (let k = 0; k < names.length; k++) {
    const name = names[(round + k) % names.length]
    perCall[name].push(await servers[name].run(batch))
  }
}
const total = (values) => values.reduce((sum, value) => sum + value, 0)
const BLOCKS = 10
/** Total CPU of `name` over the base's, overall and in each of ten blocks of consecutive rounds. */
function totals (name, base) {
  const size = Math.floor(rounds / BLOCKS)
  const blocks = Array.from({ length: BLOCKS }, (_, b) => total(perCall[name].slice(b * size, (b + 1) * size)) / total(perCall[base].slice(b * size, (b + 1) * size)))
  return `${(total(perCall[name]) / total(perCall[base])).toFixed(3)} (blocks ${Math.min(...blocks).toFixed(3)}..${Math.max(...blocks).toFixed(3)})`
}
const medianRatio = (name, base) => median(perCall[name].map((value, i) => value / perCall[base][i])).toFixed(3)
const lines = names.map((name) => [
  `${name.padEnd(10)} ${(total(perCall[name]) / rounds).toFixed(1)} µs CPU per call (median batch ${median(perCall[name]).toFixed(1)})`,
  name === 'before' ? '' : `/ before ${totals(name, 'before')}, median ratio ${medianRatio(name, 'before')}`,
  name === 'before' || name === 'none' ? '' : `/ none ${totals(name, 'none')}, median ratio ${medianRatio(name, 'none')}`,
  `wrong ${servers[name].wrong()}`
].filter((part) => part !== '').join('; '))
process.stdout.write(`${rounds} rounds of ${batch} calls per server, ${first} build loaded first\n${lines.join('\n')}\n`)
process.exit(0)
