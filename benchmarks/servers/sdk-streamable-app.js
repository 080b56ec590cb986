// The official SDK's Streamable HTTP transport, stateful, set up the way its own example does
// (@modelcontextprotocol/sdk/dist/esm/examples/server/jsonResponseStreamableHttp.js):
// createMcpExpressApp(), a StreamableHTTPServerTransport with `sessionIdGenerator: randomUUID`
// and `enableJsonResponse: true` per initialize, one McpServer per session (from `getServer`),
// sessions kept by id with the example's open-response tracking and idle sweep. Removed:
// console.log of every body. BENCH_SDK_SSE_RESPONSES=1 answers POSTs with an SSE stream instead
// (simpleStreamableHttp.js).
import { randomUUID } from 'node:crypto'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { control, ready } from './control.js'

const IDLE_MS = 30 * 60000

/** Serves `getServer()` per session on 127.0.0.1:`port` (0: any) and tells the runner when ready. */
export function serveSdkStreamable (getServer, { port = 0 } = {}) {
  const enableJsonResponse = process.env.BENCH_SDK_SSE_RESPONSES !== '1'
  const maxSessions = Number(process.env.BENCH_MAX_SESSIONS ?? 20000)
  const app = createMcpExpressApp()
  const sessions = new Map()

  const trackResponse = (session, res) => {
    if (!res.socket || res.destroyed) return
    session.open++
    res.on('close', () => {
      session.open--
      session.lastActive = Date.now()
    })
  }

  setInterval(() => {
    const cutoff = Date.now() - IDLE_MS
    for (const { transport, open, lastActive } of sessions.values()) {
      if (open === 0 && lastActive < cutoff) transport.close().catch(console.error)
    }
  }, 60000).unref()

  app.post('/mcp', async (req, res) => {
    try {
      const sessionId = req.headers['mcp-session-id']
      const session = sessionId ? sessions.get(sessionId) : undefined
      let transport
      if (session) {
        transport = session.transport
        trackResponse(session, res)
      } else if (!sessionId && isInitializeRequest(req.body)) {
        if (sessions.size >= maxSessions) {
          res.status(503).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Too many open sessions' }, id: null })
          return
        }
        transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse,
          onsessioninitialized: (sessionId) => {
            sessions.set(sessionId, { transport, server, open: 0, lastActive: Date.now() })
          }
        })
        transport.onclose = () => {
          const sid = transport.sessionId
          if (sid && sessions.has(sid)) sessions.delete(sid)
        }
        const server = getServer()
        await server.connect(transport)
        await transport.handleRequest(req, res, req.body)
        return
      } else if (sessionId) {
        res.status(404).json({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null })
        return
      } else {
        res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null })
        return
      }
      await transport.handleRequest(req, res, req.body)
    } catch (error) {
      console.error('Error handling MCP request:', error)
      if (!res.headersSent) {
        res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null })
      }
    }
  })

  app.get('/mcp', async (req, res) => {
    res.status(405).set('Allow', 'POST').send('Method Not Allowed')
  })

  const listener = app.listen(port, '127.0.0.1', (error) => {
    if (error) throw error
    control({ sessions: () => sessions.size })
    ready({ url: `http://127.0.0.1:${listener.address().port}` })
  })
}
