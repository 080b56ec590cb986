// Ours over stdio: MCPServer with no transport option, the `add` tool, default options.
import { control, ready, unavailable } from './control.js'
import { AddSchema, ADD_DESCRIPTION, addResult, SERVER_INFO, loadOurs } from './shared.js'

const MCPServer = await loadOurs(unavailable)
if (MCPServer !== undefined) {
  const server = new MCPServer(SERVER_INFO)
  server.tool({ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }, async (args) => addResult(args))
  await server.start()
  control({ close: () => server.stop() })
  ready()
}
