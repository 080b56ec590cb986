import t from 'tap'
import { InvalidOptionsError } from '../../src/index.js'
import { resolvePluginOptions, resolveServerOptions } from '../../src/schemas/resolve.js'

const SHORT = 'too-short-secret'

function refuse (resolve: (input: unknown) => unknown, input: unknown): InstanceType<typeof InvalidOptionsError> & { problems: Array<{ path: string, message: string }> } {
  try {
    resolve(input)
  } catch (error) {
    return error as never
  }
  throw new Error('accepted')
}

t.test('requestState options: defaults, validation with paths, the secret never shown', async (t) => {
  t.same(resolveServerOptions({}).requestState, { ttlMs: 600_000, maxBytes: 65_536 }, 'defaults filled, no secret: a random key per instance')
  t.same(resolvePluginOptions({ requestState: { secret: 'x'.repeat(32), ttlMs: 1000 } }).requestState, { secret: 'x'.repeat(32), ttlMs: 1000, maxBytes: 65_536 })
  for (const resolve of [resolveServerOptions, resolvePluginOptions]) {
    const err = refuse(resolve, { requestState: { secret: SHORT, ttlMs: 10, maxBytes: 10 * 1024 * 1024, rotate: true } })
    t.equal(err.code, 'FST_MCP_INVALID_OPTIONS')
    t.same(err.problems.map((problem) => problem.path).sort(), ['requestState.maxBytes', 'requestState.rotate', 'requestState.secret', 'requestState.ttlMs'])
    t.match(err.problems.find((problem) => problem.path === 'requestState.secret')?.message, /32/)
    t.notOk(err.message.includes(SHORT), 'the secret is described, never echoed')
  }
})
