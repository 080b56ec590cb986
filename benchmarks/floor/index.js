// The Fastify floor: the hand-written baseline's work (servers/baseline-http.js: legacy SSE and
// Streamable HTTP with JSON answers, `add` validated by the same compiled TypeBox schema) on a bare
// Fastify route instead of bare node:http, with Fastify's defaults (its JSON body parser, a logger
// at `warn` like MCPServer's). It exports an `MCPServer` with the few members servers/ours-http.js
// uses, so the runner measures it as a candidate build:
//
//   BENCH_WORKLOADS=sse,streamable BENCH_SERVERS=ours,baseline \
//   BENCH_CANDIDATE_DIST=benchmarks/floor/index.js node benchmarks/run.js
//
// What it costs over the baseline is Fastify's share of a call (routing, hooks, the body parser, the
// child logger, the reply); what ours costs over it is everything MCP adds on Fastify (Host and
// Origin checks, the error contract, limits, sessions that expire, the dispatcher). No CORS, no
// checks, no error contract: like the baseline, that is the point.
import Fastify from 'fastify'
import { randomUUID } from 'node:crypto'
import { TypeCompiler } from '@sinclair/typebox/compiler'

export class MCPServer {
  constructor (options) {
    this.serverInfo = { name: options.name, version: options.version }
    this.sessions = new Map()
  }

  tool (definition, handler) {
    this.check = TypeCompiler.Compile(definition.inputSchema)
    this.handler = handler
  }

  get sessionCount () {
    return this.sessions.size
  }

  broadcast (notification) {
    const frame = `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...notification })}\n\n`
    for (const session of this.sessions.values()) if (session.res !== null && session.ready) session.res.write(frame)
  }

  async answer (session, message) {
    const { id, method, params } = message
    if (id === undefined) {
      if (method === 'notifications/initialized') session.ready = true
      return undefined
    }
    switch (method) {
      case 'initialize':
        return { jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {}, logging: {} }, serverInfo: this.serverInfo } }
      case 'tools/call': {
        const args = params?.arguments ?? {}
        if (!this.check.Check(args)) return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'Invalid arguments' }], isError: true } }
        return { jsonrpc: '2.0', id, result: await this.handler(args) }
      }
      default:
        return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }
    }
  }

  async start () {
    const app = Fastify({ logger: { level: 'warn' }, forceCloseConnections: true })
    this.app = app
    app.get('/sse', (_request, reply) => {
      const id = randomUUID()
      const res = reply.raw
      reply.hijack()
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
      res.write(`event: endpoint\ndata: /messages?sessionId=${id}\n\n`)
      this.sessions.set(id, { res, ready: false })
      res.on('close', () => this.sessions.delete(id))
    })
    app.post('/messages', async (request, reply) => {
      const session = this.sessions.get(request.query.sessionId)
      if (session === undefined) return reply.code(404).send()
      reply.code(202).send('Accepted')
      const answer = await this.answer(session, request.body)
      if (answer !== undefined) session.res.write(`event: message\ndata: ${JSON.stringify(answer)}\n\n`)
      return reply
    })
    app.post('/mcp', async (request, reply) => {
      const message = request.body
      let sessionId = request.headers['mcp-session-id']
      let session
      if (sessionId === undefined && message.method === 'initialize') {
        sessionId = randomUUID()
        session = { res: null, ready: false }
        this.sessions.set(sessionId, session)
      } else {
        session = this.sessions.get(sessionId)
        if (session === undefined) return reply.code(404).send()
      }
      const answer = await this.answer(session, message)
      if (answer === undefined) return reply.code(202).send()
      return reply.header('mcp-session-id', sessionId).type('application/json').send(JSON.stringify(answer))
    })
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { url: `http://127.0.0.1:${app.server.address().port}` }
  }

  async stop () {
    await this.app.close()
  }
}
