// The practical ceiling: just enough MCP over bare node:http for the workloads, hand-written.
//   GET  /sse                  event stream; first event `endpoint` = /messages?sessionId=<id>
//   POST /messages?sessionId=  JSON-RPC in, 202 out, the answer written to that session's stream
//   POST /mcp                  Streamable HTTP, JSON answers; initialize creates a session and
//                              returns its id in `mcp-session-id`; later POSTs must carry it
// It validates `add` arguments with the same TypeBox schema (compiled), checks credentials with
// the shared verifiers, and broadcasts by serializing once and writing to every ready stream.
// No CORS, no Host checks, no body limit, no keep-alives, no error contract: that is the point.
import { createServer } from 'node:http'
import { randomUUID } from 'node:crypto'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { control, ready, benchAuth } from './control.js'
import { AddSchema, addResult, ADD_DESCRIPTION, SERVER_INFO } from './shared.js'
import { createCredentialCheck, presentedCredential } from './verifiers.js'

const checkAdd = TypeCompiler.Compile(AddSchema)
const check = createCredentialCheck(benchAuth())
/** id -> { res (SSE stream or null), ready } */
const sessions = new Map()

function answer (session, message) {
  const { id, method, params } = message
  if (id === undefined) {
    if (method === 'notifications/initialized') session.ready = true
    return undefined
  }
  switch (method) {
    case 'initialize':
      return { jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: SERVER_INFO } }
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} }
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: [{ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }] } }
    case 'tools/call': {
      if (params?.name !== 'add') return { jsonrpc: '2.0', id, error: { code: -32602, message: 'Unknown tool' } }
      const args = params.arguments ?? {}
      if (!checkAdd.Check(args)) return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Invalid arguments' }], isError: true } }
      return { jsonrpc: '2.0', id, result: addResult(args) }
    }
    default:
      return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
  }
}

function readJson (req, onMessage) {
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    let message
    try {
      message = JSON.parse(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    } catch {
      return onMessage(undefined)
    }
    onMessage(message)
  })
}

function route (req, res) {
  const q = req.url.indexOf('?')
  const path = q === -1 ? req.url : req.url.slice(0, q)
  if (req.method === 'GET' && path === '/sse') {
    const id = randomUUID()
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
    res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`)
    sessions.set(id, { res, ready: false })
    res.on('close', () => sessions.delete(id))
    return
  }
  if (req.method === 'POST' && path === '/messages') {
    const session = sessions.get(new URLSearchParams(req.url.slice(q + 1)).get('sessionId'))
    if (session === undefined) return res.writeHead(404).end()
    return readJson(req, (message) => {
      if (message === undefined) return res.writeHead(400).end()
      res.writeHead(202).end('Accepted')
      const reply = answer(session, message)
      if (reply !== undefined) session.res.write(`event: message\ndata: ${JSON.stringify(reply)}\n\n`)
    })
  }
  if (req.method === 'POST' && path === '/mcp') {
    return readJson(req, (message) => {
      if (message === undefined) return res.writeHead(400).end()
      let sessionId = req.headers['mcp-session-id']
      let session
      if (sessionId === undefined && message.method === 'initialize') {
        sessionId = randomUUID()
        session = { res: null, ready: false }
        sessions.set(sessionId, session)
      } else {
        session = sessions.get(sessionId)
        if (session === undefined) return res.writeHead(404).end()
      }
      const reply = answer(session, message)
      if (reply === undefined) return res.writeHead(202).end()
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': sessionId }).end(JSON.stringify(reply))
    })
  }
  res.writeHead(404).end()
}

const server = createServer(check === undefined
  ? route
  : (req, res) => {
      const credential = presentedCredential(check, req.headers)
      if (credential === undefined) return res.writeHead(401).end()
      let verified
      try {
        verified = check.verify(credential)
      } catch {
        return res.writeHead(401).end()
      }
      if (typeof verified?.then !== 'function') return route(req, res)
      verified.then(() => route(req, res), () => res.writeHead(401).end())
    })

server.listen(0, '127.0.0.1', () => {
  control({
    broadcast: (notification) => {
      const frame = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...notification })}\n\n`
      let reached = 0
      for (const session of sessions.values()) {
        if (session.res === null || !session.ready) continue
        session.res.write(frame)
        reached++
      }
      return reached
    },
    sessions: () => sessions.size
  })
  ready({ url: `http://127.0.0.1:${server.address().port}` })
})
