// mcp-framework (npm) serving the hello-world catalog as its README sets a server up: an
// MCPServer discovering its tools under `basePath` (mcp-framework/tools/AddTool.js) over its
// `http-stream` transport with default options (SSE answers, sessions on), or stdio. It builds
// on the official SDK v1 and speaks 2025-11-25 and older only. It cannot listen on port 0, so
// the runner hands it a free port (BENCH_PORT).
import { connect } from 'node:net'
import { fileURLToPath } from 'node:url'
import { MCPServer } from 'mcp-framework'
import { control, ready, unavailable } from './control.js'
import { SERVER_INFO } from './shared.js'

const transport = process.env.BENCH_TRANSPORT ?? 'http'
const port = Number(process.env.BENCH_PORT ?? 0)
if ((process.env.BENCH_CATALOG ?? 'hello') !== 'hello') {
  unavailable('mcp-framework serves the hello-world catalog only')
} else if (transport === 'http' && port === 0) {
  unavailable('mcp-framework needs BENCH_PORT (it cannot listen on an ephemeral port)')
} else {
  const server = new MCPServer({
    ...SERVER_INFO,
    basePath: fileURLToPath(new URL('./mcp-framework/', import.meta.url)),
    transport: transport === 'http' ? { type: 'http-stream', options: { port, host: '127.0.0.1' } } : { type: 'stdio' }
  })
  // start() resolves only at shutdown: over HTTP it is serving once its port accepts a connection.
  server.start().catch((error) => unavailable(error.message))
  if (transport === 'http') await listening(port, 20000)
  control({ close: () => server.stop() })
  ready(transport === 'http' ? { url: `http://127.0.0.1:${port}` } : {})
}

/** Resolves once 127.0.0.1:`port` accepts a connection; rejects after `ms`. */
async function listening (port, ms) {
  const deadline = Date.now() + ms
  for (;;) {
    const open = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (open) return
    if (Date.now() > deadline) throw new Error(`mcp-framework did not listen on ${port} within ${ms} ms`)
    await new Promise((resolve) => setTimeout(resolve, 2))
  }
}
