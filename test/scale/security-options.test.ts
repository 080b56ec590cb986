// Issue 19, item 13: `scaleOut` without `requestState.secret` booted, and every 2026-07-28
// multi-round-trip retry that landed on another instance failed (each signed with a key of its
// own). Refused now, at boot, with the path and what to do; a server that serves only the legacy
// protocols (no requestState) needs none.
import Fastify from 'fastify'
import t from 'tap'
import mcp, { MCPServer } from '../../src/index.js'
import { resolvePluginOptions, resolveServerOptions, type InvalidOptions } from '../../src/schemas/resolve.js'

const redis = 'redis://127.0.0.1:6379/0'

function problemsOf (resolve: () => unknown): InvalidOptions | undefined {
  try {
    resolve()
  } catch (error) {
    return error as InvalidOptions
  }
  return undefined
}

t.test('scaleOut serving 2026-07-28 without requestState.secret is refused at boot, naming the path', async (t) => {
  const plugin = problemsOf(() => resolvePluginOptions({ scaleOut: { redis } }))
  t.equal(plugin?.code, 'FST_MCP_INVALID_OPTIONS')
  const problem = plugin?.problems.find((p) => p.path === 'requestState.secret')
  t.match(problem?.message, /required with scaleOut.*same secret.*every instance/)

  const server = problemsOf(() => resolveServerOptions({ transport: { type: 'sse', options: { scaleOut: { redis } } } }))
  t.ok(server?.problems.some((p) => p.path === 'requestState.secret'), 'MCPServer too (scaleOut in transport.options)')

  t.throws(() => new MCPServer({ transport: { type: 'sse', options: { scaleOut: { redis } } } }), { code: 'FST_MCP_INVALID_OPTIONS' })
  const app = Fastify()
  t.teardown(() => app.close())
  await t.rejects(async () => { await app.register(mcp, { scaleOut: { redis } }).ready() }, { code: 'FST_MCP_INVALID_OPTIONS' }, 'the plugin fails ready()')
})

t.test('with a shared secret, or serving only the legacy protocols, scaleOut is accepted', async (t) => {
  const secret = 'shared-state-secret-0123456789abcdef'
  t.equal(problemsOf(() => resolvePluginOptions({ requestState: { secret }, scaleOut: { redis } })), undefined, 'a secret')
  t.equal(problemsOf(() => resolvePluginOptions({ protocols: ['legacy'], scaleOut: { redis } })), undefined, 'legacy only: no requestState is ever signed')
  t.equal(problemsOf(() => resolveServerOptions({ requestState: { secret }, transport: { type: 'sse', options: { scaleOut: { redis } } } })), undefined)
  t.equal(problemsOf(() => resolvePluginOptions({})), undefined, 'no scaleOut: the per-instance random key is right')
})

t.test('scaleOut.inboxBytes: 64 MiB by default, at least 64 KiB', async (t) => {
  const secret = 'shared-state-secret-0123456789abcdef'
  t.equal(resolvePluginOptions({ requestState: { secret }, scaleOut: { redis } }).scaleOut?.inboxBytes, 64 * 1024 * 1024)
  const error = problemsOf(() => resolvePluginOptions({ requestState: { secret }, scaleOut: { redis, inboxBytes: 1000 } }))
  t.ok(error?.problems.some((p) => p.path === 'scaleOut.inboxBytes'), 'too small is named')
})
