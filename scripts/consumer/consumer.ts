// A strict NodeNext consumer of the packed package: what the public types promise, checked by tsc
// (scripts/package-test.js copies this folder into a scratch app that installed the tarball).
import Fastify from 'fastify'
import mcp, {
  ErrorCode, MCPServer, McpError, Type,
  type HandlerContext, type HttpStartInfo, type MCPPluginOptions, type Principal, type ServerOptions, type StartInfo
} from 'fastify-mcp-server'

// Users type their claims by declaration merging.
declare module 'fastify-mcp-server' {
  interface MCPAuthClaims { tenant: string }
}

const server = new MCPServer({ name: 'consumer', version: '1.0.0', transport: { type: 'sse', options: { port: 0 } } })
server.tool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() })
}, async ({ a, b }, ctx: HandlerContext) => {
  const tenant: string | undefined = ctx.auth?.claims.tenant
  if (a < 0) throw new McpError(ErrorCode.InvalidParams, 'a must not be negative')
  return { content: [{ type: 'text', text: `${a + b}${tenant === undefined ? '' : ` for ${tenant}`}` }] }
})

// An HTTP configuration yields the listener's address, with no narrowing.
const { url, port, host }: HttpStartInfo = await server.start()
console.log(url, port, host)
await server.stop()

// A configuration typed only as ServerOptions yields the union: narrowing is then the caller's job.
const options: ServerOptions = {}
const info: StartInfo = await new MCPServer(options).start()
if (info.transport === 'sse') console.log(info.url)

const pluginOptions: MCPPluginOptions = { name: 'app', prefix: '/api' }
const app = Fastify()
await app.register(mcp, pluginOptions)
app.mcp.tool({ name: 'echo', inputSchema: Type.Object({ text: Type.String() }) }, async ({ text }) => ({
  content: [{ type: 'text', text }]
}))
app.get('/whoami', async (request) => {
  const principal: Principal | undefined = request.mcpPrincipal
  return { subject: principal?.subject ?? null }
})
await app.ready()
await app.close()
