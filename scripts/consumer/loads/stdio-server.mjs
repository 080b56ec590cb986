// A stdio server on the installed package, for the bin's own test (`call ... add a=1 b=2`).
import { MCPServer, Type } from 'fastify-mcp-server'

const server = new MCPServer({ name: 'bin-check', version: '1.0.0', logLevel: 'silent' })
server.tool({ name: 'add', inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() }) }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))
await server.start()
