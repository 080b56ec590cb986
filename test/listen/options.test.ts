import t from 'tap'
import { resolvePluginOptions, resolveServerOptions, type InvalidOptions } from '../../src/schemas/resolve.js'

function problemsOf (fn: () => unknown): InvalidOptions['problems'] {
  try {
    fn()
  } catch (error) {
    const err = error as InvalidOptions
    if (err.code !== 'FST_MCP_INVALID_OPTIONS') throw error
    return err.problems
  }
  return []
}

t.test('listen bounds have safe defaults on both entry points', async (t) => {
  const defaults = { maxStreams: 10000, maxStreamsPerPrincipal: 16, maxResourceSubscriptions: 100, maxRequestBytes: 65536 }
  t.same(resolveServerOptions(undefined).listen, defaults)
  t.same(resolvePluginOptions({}).listen, defaults)
  t.same(resolveServerOptions({ listen: { maxStreamsPerPrincipal: 2 } }).listen, { ...defaults, maxStreamsPerPrincipal: 2 }, 'a partial block keeps the other defaults')
  t.ok(Object.isFrozen(resolveServerOptions({}).listen))
})

t.test('bad listen bounds are refused in one error naming each path', async (t) => {
  const problems = problemsOf(() => resolveServerOptions({
    listen: { maxStreams: 0, maxStreamsPerPrincipal: 1.5, maxResourceSubscriptions: -1, maxUriLength: 2048, maxStream: 3 }
  }))
  t.same(problems.map((p) => p.path), [
    'listen.maxResourceSubscriptions', 'listen.maxStream', 'listen.maxStreams', 'listen.maxStreamsPerPrincipal', 'listen.maxUriLength'
  ], 'URI length is the server-wide maxUriBytes, not a listen option')
  t.match(problems.find((p) => p.path === 'listen.maxStream')?.message, /did you mean "maxStreams"/)
  t.match(problems.find((p) => p.path === 'listen.maxStreams')?.message, /an integer of at least 1, got 0/)
  t.same(problemsOf(() => resolvePluginOptions({ listen: 'on' })).map((p) => p.path), ['listen'])
})
