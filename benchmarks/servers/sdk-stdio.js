// The official SDK over stdio, as its README sets it up: McpServer + StdioServerTransport.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import * as z from 'zod/v4'
import { control, ready } from './control.js'
import { ADD_DESCRIPTION, addResult, SERVER_INFO } from './shared.js'

const server = new McpServer(SERVER_INFO, { capabilities: { logging: {} } })
server.registerTool('add', {
  description: ADD_DESCRIPTION,
  inputSchema: { a: z.number(), b: z.number() }
}, async (args) => addResult(args))
await server.connect(new StdioServerTransport())
control({ close: () => server.close() })
ready()
