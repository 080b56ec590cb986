// The official SDK v2 (@modelcontextprotocol/server 2.x) serving the benchmark catalog as its
// users write it: a server factory registering `registerTool` with `z.object(...)` schemas
// (shared sub-schemas as shared consts), `registerPrompt` with a `z.object` argsSchema,
// `registerResource`. Over HTTP, as its serving guide does on Node: `createMcpHandler(factory)`
// wrapped once with `toNodeHandler` (@modelcontextprotocol/node), behind its localhost Host and
// Origin guards: 2026-07-28 requests served per request, 2025-era ones by its stateless legacy
// fallback (the default); over stdio, `serveStdio(factory)`, which serves either era.
import { createServer } from 'node:http'
import { McpServer, createMcpHandler } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import { localhostHostValidation, localhostOriginValidation, toNodeHandler } from '@modelcontextprotocol/node'
import * as z from 'zod'
import { toZod } from '../catalog/dsl.js'
import { toolHandler } from '../catalog/catalog.js'
import { catalogSettings } from './catalog-env.js'
import { control, ready } from './control.js'
import { SERVER_INFO } from './shared.js'

const { transport, port, catalog } = catalogSettings()

// The zod schemas are built once, as module-level consts are in an app; each instance the
// factory makes registers them (in the SDK's favour: building them inside the factory costs more).
const shared = new Map()
const tools = catalog.tools.map((tool) => ({
  tool,
  handler: toolHandler(tool),
  inputSchema: toZod(tool.input, z, catalog.defs, shared),
  outputSchema: tool.output === undefined ? undefined : toZod(tool.output, z, catalog.defs, shared)
}))
const prompts = catalog.prompts.map((prompt) => ({
  prompt,
  argsSchema: z.object(Object.fromEntries(prompt.args.map((a) => [a.name, a.required ? z.string().describe(a.description) : z.string().describe(a.description).optional()])))
}))

function factory () {
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
  const mcpHandler = createMcpHandler(factory)
  const serve = toNodeHandler(mcpHandler)
  // The Host and Origin guards its node:http example puts in front (ours checks both by default).
  const validateHost = localhostHostValidation()
  const validateOrigin = localhostOriginValidation()
  const listener = createServer((req, res) => {
    if (!validateHost(req, res) || !validateOrigin(req, res)) return
    serve(req, res)
  }).listen(port, '127.0.0.1', () => {
    control({ close: () => mcpHandler.close() })
    ready({ url: `http://127.0.0.1:${listener.address().port}` })
  })
} else {
  const served = serveStdio(factory)
  control({ close: () => served.close() })
  ready()
}
