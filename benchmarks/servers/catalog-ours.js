// Ours serving the benchmark catalog (catalog/catalog.js) as our users write it: `server.tool()`
// with plain JSON Schemas (shared definitions under `$defs`, referenced with `$ref`),
// `server.prompt()`, `server.resource()`. Over HTTP, one MCPServer answers both generations on
// /mcp (2025-11-25 sessions and 2026-07-28 stateless requests); over stdio, either.
import { toolHandler } from '../catalog/catalog.js'
import { catalogSettings } from './catalog-env.js'
import { control, ready, unavailable } from './control.js'
import { SERVER_INFO, loadOurs } from './shared.js'

const MCPServer = await loadOurs(unavailable)
if (MCPServer !== undefined) {
  const { transport, port, catalog } = catalogSettings()
  const sessions = Number(process.env.BENCH_MAX_SESSIONS ?? 20000)
  const server = new MCPServer({
    ...SERVER_INFO,
    ...(transport === 'http' ? { transport: { type: 'sse', options: { port, host: '127.0.0.1', maxSessions: sessions, maxSessionsPerClient: sessions } } } : {})
  })
  for (const tool of catalog.tools) {
    server.tool({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      annotations: tool.annotations
    }, toolHandler(tool))
  }
  for (const prompt of catalog.prompts) {
    server.prompt({ name: prompt.name, description: prompt.description, arguments: prompt.args }, async (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${prompt.description}: ${JSON.stringify(args)}` } }]
    }))
  }
  for (const resource of catalog.resources) {
    server.resource({ uri: resource.uri, name: resource.name, description: resource.description, mimeType: resource.mimeType }, async (uri) => ({
      contents: [{ uri, mimeType: resource.mimeType, text: resource.text }]
    }))
  }
  const started = await server.start()
  control({ close: () => server.stop() })
  ready(transport === 'http' ? { url: started.url } : {})
}
