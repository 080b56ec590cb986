// The official SDK's McpServer with the `add` tool, as its examples build one per session;
// shared by the SDK's legacy SSE and Streamable HTTP benchmark servers.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import * as z from 'zod/v4'
import { ADD_DESCRIPTION, addResult, SERVER_INFO } from './shared.js'

export function createSdkServer () {
  const server = new McpServer(SERVER_INFO, { capabilities: { logging: {} } })
  server.registerTool('add', {
    description: ADD_DESCRIPTION,
    inputSchema: { a: z.number(), b: z.number() }
  }, async (args) => addResult(args))
  return server
}
