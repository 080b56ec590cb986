// What an application does with the main entry: a standalone server and a plugin app, started
// and stopped. None of it may load the testing entry or the CLI.
import Fastify from 'fastify'
import mcp, { MCPServer, Type } from 'fastify-mcp-server'

const server = new MCPServer({ name: 'loads', version: '1.0.0', logLevel: 'silent', transport: { type: 'sse', options: { port: 0 } } })
server.tool({ name: 'add', inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() }) }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
await server.start()
await server.stop()
const app = Fastify()
await app.register(mcp, { name: 'loads', version: '1.0.0' })
await app.ready()
await app.close()
