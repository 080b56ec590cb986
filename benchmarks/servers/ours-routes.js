// Ours as a Fastify plugin, with the benchmark's `add` three ways, all answering
// `{ content: [{ type: 'text', text: '3' }] }`: a tool registered by hand (`add`); a route
// (`POST /add`, the same schema as its body, answering the sum as text) that the plugin makes the
// tool `add_route`; and a tool registered by hand whose handler injects that route itself
// (`add_inject`: the direct tool plus one inject(), written the shortest way). Its own control
// command `inject` measures one inject() of the route alone, as the route tool makes it.
import Fastify from 'fastify'
import { control, ready, unavailable } from './control.js'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO } from './shared.js'

let plugin
try {
  plugin = (await import(process.env.BENCH_OURS_DIST ?? '../../dist/index.js')).mcp
} catch (error) {
  unavailable(`dist/ does not load (${error.message}); run npm run build`)
}

if (plugin !== undefined) {
  const app = Fastify()
  await app.register(plugin, { ...SERVER_INFO, maxSessions: 20000, maxSessionsPerClient: 20000 })
  app.mcp.tool({ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }, async (args) => addResult(args))
  app.post('/add', {
    config: { mcp: { name: 'add_route', description: ADD_DESCRIPTION } },
    schema: { body: AddSchema }
  }, async (request, reply) => reply.type('text/plain; charset=utf-8').send(String(request.body.a + request.body.b)))
  app.mcp.tool({ name: 'add_inject', description: ADD_DESCRIPTION, inputSchema: AddSchema }, async (args) => {
    const answer = await app.inject({ method: 'POST', url: '/add', headers: {}, validate: false, payload: args })
    return { content: [{ type: 'text', text: answer.payload }] }
  })
  const url = await app.listen({ port: 0, host: '127.0.0.1' })

  /** `calls` inject()s of the route, `concurrency` at a time, shaped as the route tool shapes them. */
  async function injects ({ calls = 20000, concurrency = 64 }) {
    const one = () => app.inject({ method: 'POST', url: '/add', headers: {}, validate: false, payload: { a: 1, b: 2 }, remoteAddress: '127.0.0.1' })
    const batch = async () => {
      const answers = await Promise.all(Array.from({ length: concurrency }, one))
      if (answers.some((answer) => answer.payload !== '3')) throw new Error(`inject answered ${answers[0].statusCode} ${answers[0].payload}`)
    }
    for (let i = 0; i < 50; i++) await batch()
    globalThis.gc?.()
    const before = process.cpuUsage()
    let done = 0
    for (; done < calls; done += concurrency) await batch()
    const used = process.cpuUsage(before)
    return { calls: done, cpuMicrosPerInject: (used.user + used.system) / done }
  }

  control({ sessions: () => app.mcp.sessionCount, close: () => app.close(), commands: { inject: injects } })
  ready({ url })
}
