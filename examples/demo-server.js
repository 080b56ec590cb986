#!/usr/bin/env node
// The demo server `npm start` runs: a few useful tools (text_stats with an MCP Apps view), resources and a prompt.
//   node examples/demo-server.js                 stdio (what MCP hosts launch)
//   node examples/demo-server.js --sse [--port 8080] [--host 127.0.0.1]
//                                                HTTP: legacy SSE at /sse and Streamable HTTP at /mcp
//   DEMO_API_KEY=<16+ characters> ... --sse      HTTP clients must send it as X-API-Key
import { parseArgs } from 'node:util'
import { MCPServer, Type } from '../dist/index.js'
import { registerTextStats } from './apps/text-stats.js'

const { values: flags } = parseArgs({
  options: {
    sse: { type: 'boolean', default: false },
    port: { type: 'string', default: '8080' },
    host: { type: 'string', default: '127.0.0.1' }
  }
})

// Over HTTP, an API key when one is given (try it with the CLI: --header 'X-API-Key: ...').
const apiKey = process.env.DEMO_API_KEY
const auth = apiKey === undefined || apiKey === '' ? {} : { auth: { type: 'apikey', options: { keys: [apiKey] } } }

const server = new MCPServer({
  name: 'demo',
  version: '1.0.0',
  instructions: 'A demo server: arithmetic, the time anywhere, text statistics and a cancellable countdown.',
  logLevel: 'info',
  ...(flags.sse ? { transport: { type: 'sse', options: { port: Number(flags.port), host: flags.host, ...auth } } } : {})
})

server.tool({
  name: 'add',
  description: 'Adds two numbers',
  inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() })
}, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))

server.tool({
  name: 'current_time',
  description: 'The current date and time in an IANA time zone (default UTC)',
  inputSchema: Type.Object({ timeZone: Type.Optional(Type.String({ description: 'For example Europe/Paris' })) })
}, async ({ timeZone = 'UTC' }) => {
  // An unknown zone throws a RangeError: the client gets isError with its message.
  const text = new Date().toLocaleString('en-GB', { timeZone, dateStyle: 'full', timeStyle: 'long' })
  return { content: [{ type: 'text', text }] }
})

// text_stats, with its MCP Apps view (examples/apps/): hosts that render apps show the result there.
registerTextStats(server)

server.tool({
  name: 'countdown',
  description: 'Counts down, reporting progress each second; cancel it from the client',
  inputSchema: Type.Object({ seconds: Type.Integer({ minimum: 1, maximum: 30 }) })
}, async ({ seconds }, ctx) => {
  for (let left = seconds; left > 0; left--) {
    ctx.progress(seconds - left, seconds, `${left} s left`)
    await new Promise((resolve) => setTimeout(resolve, 1000))
    if (ctx.signal.aborted) return { content: [{ type: 'text', text: 'cancelled' }], isError: true }
  }
  return { content: [{ type: 'text', text: 'Lift-off!' }] }
})

server.resource({ uri: 'demo://about', name: 'about', mimeType: 'text/markdown', description: 'What this server is' },
  async (uri) => ({ contents: [{ uri, text: '# Demo\nServed by fastify-mcp-server.' }] }))

server.resource({
  uri: 'demo://zones/{zone}',
  name: 'time-in-zone',
  mimeType: 'text/plain',
  description: 'The time in a time zone, as a resource',
  complete: { zone: (value) => Intl.supportedValuesOf('timeZone').filter((zone) => zone.toLowerCase().startsWith(value.toLowerCase())) }
}, async (uri, ctx) => ({
  contents: [{ uri, text: new Date().toLocaleString('en-GB', { timeZone: decodeURIComponent(ctx.params.zone) }) }]
}))

server.prompt({
  name: 'summarize',
  description: 'Asks the model to summarize a text',
  arguments: [
    { name: 'text', description: 'The text to summarize', required: true },
    { name: 'style', description: 'bullet points or one paragraph', complete: (value) => ['bullet points', 'one paragraph'].filter((s) => s.startsWith(value)) }
  ]
}, async ({ text, style = 'one paragraph' }) => ({
  messages: [{ role: 'user', content: { type: 'text', text: `Summarize the following text as ${style}:\n\n${text}` } }]
}))

const info = await server.start()
if (info.transport === 'sse') {
  process.stderr.write(`demo MCP server listening: ${info.url}/sse (legacy SSE), ${info.url}/mcp (Streamable HTTP)\n`)
} else if (process.stdin.isTTY) {
  process.stderr.write('demo MCP server on stdio: an MCP host launches this as a child process (see README). Ctrl+C to quit.\n')
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => { void server.stop().then(() => process.exit(0)) })
}
