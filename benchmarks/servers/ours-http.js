// Ours over HTTP: one MCPServer serving legacy SSE (/sse + /messages) and, when the transport
// exists, Streamable HTTP (/mcp), with default options except the session caps (raised so the
// 10,000-session fan-out, every session from the one benchmark client, is not refused by its own
// ceiling or by the per-client share) and the auth the runner asks for. With BENCH_SCALE_REDIS
// (a redis:// URL, or a Redis Cluster configuration as JSON) it is one instance of a scale-out
// deployment, id BENCH_INSTANCE_ID.
import { control, ready, unavailable, benchAuth } from './control.js'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO, loadOurs } from './shared.js'

const MCPServer = await loadOurs(unavailable)

if (MCPServer !== undefined) {
  const auth = benchAuth()
  const maxSessions = Number(process.env.BENCH_MAX_SESSIONS ?? 20000)
  const options = { port: 0, host: '127.0.0.1', maxSessions, maxSessionsPerClient: maxSessions }
  const redis = process.env.BENCH_SCALE_REDIS
  if (redis) options.scaleOut = { redis: redis.startsWith('{') ? JSON.parse(redis) : redis, instanceId: process.env.BENCH_INSTANCE_ID }
  if (auth?.mode === 'apikey') {
    options.auth = { type: 'apikey', options: { keys: auth.keys, headerName: auth.headerName } }
  } else if (auth?.mode === 'jwt-hs256') {
    options.auth = { type: 'jwt', options: { secret: auth.secret, algorithms: ['HS256'], issuer: auth.issuer, audience: auth.audience } }
  } else if (auth?.mode === 'jwt-rs256-jwks') {
    options.auth = { type: 'jwt', options: { jwksUri: auth.jwksUri, algorithms: ['RS256'], issuer: auth.issuer, audience: auth.audience } }
  }
  try {
    const server = new MCPServer({ ...SERVER_INFO, transport: { type: 'sse', options } })
    server.tool({ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }, async (args) => addResult(args))
    const { url } = await server.start()
    control({
      broadcast: (notification) => server.broadcast(notification),
      sessions: () => server.sessionCount,
      close: () => server.stop()
    })
    ready({ url })
  } catch (error) {
    unavailable(error.message)
  }
}
