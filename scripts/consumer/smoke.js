// Runs in the scratch app against the installed tarball: an MCPServer over HTTP and a plugin app,
// each answering a tool call from the official SDK client. Exits non-zero on any difference.
import assert from 'node:assert/strict'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Fastify from 'fastify'
import mcp, { MCPServer, Type } from 'fastify-mcp-server'

async function callAdd (transport) {
  const client = new Client({ name: 'package-test', version: '1.0.0' })
  await client.connect(transport)
  try {
    const { tools } = await client.listTools()
    assert.deepEqual(tools.map((tool) => tool.name), ['add'])
    const result = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } })
    assert.deepEqual(result.content, [{ type: 'text', text: '5' }])
  } finally {
    await client.close()
  }
}

const add = [
  { name: 'add', description: 'Adds two numbers', inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() }) },
  async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] })
]

// Standalone, Streamable HTTP.
const server = new MCPServer({ name: 'standalone', version: '1.0.0', transport: { type: 'sse', options: { port: 0 } } })
server.tool(...add)
const { url } = await server.start()
try {
  await callAdd(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)))
  await callAdd(new SSEClientTransport(new URL(`${url}/sse`)))
} finally {
  await server.stop()
}
console.log('package-test: MCPServer answered over Streamable HTTP and SSE')

// Inside a Fastify app, under a prefix, beside the app's own route.
const app = Fastify()
await app.register(mcp, { name: 'plugin', version: '1.0.0', prefix: '/api' })
app.mcp.tool(...add)
app.get('/health', async () => ({ ok: true }))
const base = await app.listen({ port: 0, host: '127.0.0.1' })
try {
  await callAdd(new StreamableHTTPClientTransport(new URL(`${base}/api/mcp`)))
  assert.deepEqual(await (await fetch(`${base}/health`)).json(), { ok: true })
} finally {
  await app.close()
}
console.log('package-test: the plugin answered inside a Fastify app')
