// The official SDK's legacy HTTP+SSE transport, set up the way its own example does
// (@modelcontextprotocol/sdk/dist/esm/examples/server/simpleSseServer.js): createMcpExpressApp(),
// one McpServer and one SSEServerTransport per GET, transports kept by session id, POSTs handed
// to `transport.handlePostMessage(req, res, req.body)`. Differences from the example, all in the
// SDK's favour or neutral: no console.log on every request, GET on /sse instead of /mcp, and, with
// auth, the SDK's `requireBearerAuth` middleware on both routes as its Streamable HTTP example does
// (a small header check for API keys, which the SDK does not offer).
import { SSEServerTransport } from '@modelcontextprotocol/sdk/server/sse.js'
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js'
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js'
import { control, ready, benchAuth } from './control.js'
import { createSdkServer } from './sdk-server.js'
import { createCredentialCheck, presentedCredential } from './verifiers.js'

const getServer = createSdkServer

const app = createMcpExpressApp()
const transports = {}
const servers = new Map()

const check = createCredentialCheck(benchAuth())
const guards = []
if (check?.scheme === 'bearer') {
  guards.push(requireBearerAuth({ verifier: { verifyAccessToken: async (token) => ({ token, clientId: 'bench', ...(await check.verify(token)) }) } }))
} else if (check?.scheme === 'apikey') {
  guards.push((req, res, next) => {
    const key = presentedCredential(check, req.headers)
    try {
      if (key === undefined) throw new Error('missing')
      req.auth = { token: '', clientId: check.verify(key).subject, scopes: [] }
      next()
    } catch {
      res.status(401).json({ error: 'invalid_token' })
    }
  })
}

app.get('/sse', ...guards, async (req, res) => {
  try {
    const transport = new SSEServerTransport('/messages', res)
    const sessionId = transport.sessionId
    transports[sessionId] = transport
    transport.onclose = () => {
      delete transports[sessionId]
      servers.delete(sessionId)
    }
    const server = getServer()
    servers.set(sessionId, server)
    await server.connect(transport)
  } catch (error) {
    console.error('Error establishing SSE stream:', error)
    if (!res.headersSent) res.status(500).send('Error establishing SSE stream')
  }
})

app.post('/messages', ...guards, async (req, res) => {
  const sessionId = req.query.sessionId
  if (!sessionId) {
    res.status(400).send('Missing sessionId parameter')
    return
  }
  const transport = transports[sessionId]
  if (!transport) {
    res.status(404).send('Session not found')
    return
  }
  try {
    await transport.handlePostMessage(req, res, req.body)
  } catch (error) {
    console.error('Error handling request:', error)
    if (!res.headersSent) res.status(500).send('Error handling request')
  }
})

const listener = app.listen(0, '127.0.0.1', (error) => {
  if (error) throw error
  const { port } = listener.address()
  control({
    // The SDK has no broadcast: the application loops over its per-session servers.
    broadcast: async (notification) => {
      const sends = []
      for (const server of servers.values()) sends.push(server.server.notification(notification))
      await Promise.allSettled(sends)
      return sends.length
    },
    sessions: () => servers.size
  })
  ready({ url: `http://127.0.0.1:${port}` })
})
