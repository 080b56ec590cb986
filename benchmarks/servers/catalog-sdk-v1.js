// The official SDK v1 (@modelcontextprotocol/sdk) serving the benchmark catalog as its users write
// it: `registerTool` with zod raw shapes (shared sub-schemas as shared consts), `registerPrompt`
// with a zod `argsSchema`, `registerResource`. Over HTTP, as its jsonResponseStreamableHttp.js
// example does: a McpServer per session (sdk-streamable-app.js); over stdio, McpServer +
// StdioServerTransport. It speaks 2025-11-25 and older only.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod/v4'
import { zodShape } from '../catalog/dsl.js'
import { toolHandler } from '../catalog/catalog.js'
import { catalogSettings } from './catalog-env.js'
import { control, ready } from './control.js'
import { serveSdkStreamable } from './sdk-streamable-app.js'
import { SERVER_INFO } from './shared.js'

const { transport, port, catalog } = catalogSettings()

// The zod schemas are built once, as module-level consts are in an app; each session's McpServer registers them.
const shared = new Map()
const tools = catalog.tools.map((tool) => ({
  tool,
  handler: toolHandler(tool),
  inputSchema: zodShape(tool.input, z, catalog.defs, shared),
  outputSchema: tool.output === undefined ? undefined : zodShape(tool.output, z, catalog.defs, shared)
}))
const prompts = catalog.prompts.map((prompt) => ({
  prompt,
  argsSchema: Object.fromEntries(prompt.args.map((a) => [a.name, a.required ? z.string().describe(a.description) : z.string().describe(a.description).optional()]))
}))

function createServer () {
  const server = new McpServer(SERVER_INFO, { capabilities: { logging: {} } })
  for (const { tool, handler, inputSchema, outputSchema } of tools) {
    server.registerTool(tool.name, {
      title: tool.title,
      description: tool.description,
      inputSchema,
      ...(outputSchema === undefined ? {} : { outputSchema }),
      annotations: tool.annotations
    }, handler)
  }
  for (const { prompt, argsSchema } of prompts) {
    server.registerPrompt(prompt.name, { description: prompt.description, argsSchema }, async (args) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${prompt.description}: ${JSON.stringify(args)}` } }]
    }))
  }
  for (const resource of catalog.resources) {
    server.registerResource(resource.name, resource.uri, { description: resource.description, mimeType: resource.mimeType }, async (uri) => ({
      contents: [{ uri: uri.href, mimeType: resource.mimeType, text: resource.text }]
    }))
  }
  return server
}

if (transport === 'http') {
  serveSdkStreamable(createServer, { port })
} else {
  const server = createServer()
  await server.connect(new StdioServerTransport())
  control({ close: () => server.close() })
  ready()
}
