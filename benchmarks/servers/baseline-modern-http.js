// The practical ceiling of a 2026-07-28 (stateless) server: a hand-written node:http POST /mcp
// doing the honest work of that revision and nothing more, beside baseline-http.js (2025).
// Per request: Content-Type and Accept checked, the body parsed, the JSON-RPC envelope checked,
// `params._meta` validated (protocol version a non-empty string, client capabilities an object,
// client info an object when present, a known log level when present), the three headers
// checked against the body (`MCP-Protocol-Version` = the `_meta` version, `Mcp-Method` = the
// method, `Mcp-Name` = the tool name, `=?base64?…?=` values decoded), the version checked
// against the one served, the tool's arguments validated (the same TypeBox schema, compiled),
// and the result answered with `resultType` and `_meta` serverInfo, as the revision requires.
// Ladder errors carry their codes (-32602, -32020, -32022, -32601) with HTTP 400.
// No CORS, Host checks, limits, auth or telemetry: that is the point.
import { createServer } from 'node:http'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import { control, ready } from './control.js'
import { AddSchema, addResult, ADD_DESCRIPTION, SERVER_INFO } from './shared.js'

const VERSION = '2026-07-28'
const SUPPORTED = [VERSION]
const PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion'
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities'
const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo'
const LOG_LEVEL = 'io.modelcontextprotocol/logLevel'
const LOG_LEVELS = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'])
const RESULT_META = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
const BASE64_SENTINEL = /^=\?base64\?(.*)\?=$/s

const checkAdd = TypeCompiler.Compile(AddSchema)
const tools = new Map([['add', { check: checkAdd, run: addResult }]])
const TOOL_LIST = [{ name: 'add', description: ADD_DESCRIPTION, inputSchema: AddSchema }]

class Refusal extends Error {
  constructor (code, message, data) {
    super(message)
    this.code = code
    this.data = data
  }
}

const isObject = (value) => typeof value === 'object' && value !== null && !Array.isArray(value)

function header (req, name) {
  const value = req.headers[name]
  if (value === undefined || value === '') throw new Refusal(-32020, `Header mismatch: the ${name} header is required`)
  const match = BASE64_SENTINEL.exec(value)
  return match === null ? value : Buffer.from(match[1], 'base64').toString('utf8')
}

/** The `_meta` rung, the header rung and the version rung, in the revision's order. */
function admit (req, message) {
  const meta = message.params?._meta
  if (!isObject(meta)) throw new Refusal(-32602, 'Invalid params: params._meta is required')
  const version = meta[PROTOCOL_VERSION]
  if (typeof version !== 'string' || version === '') throw new Refusal(-32602, 'Invalid params: _meta protocolVersion must be a non-empty string')
  if (!isObject(meta[CLIENT_CAPABILITIES])) throw new Refusal(-32602, 'Invalid params: _meta clientCapabilities must be an object')
  if (meta[CLIENT_INFO] !== undefined && !isObject(meta[CLIENT_INFO])) throw new Refusal(-32602, 'Invalid params: _meta clientInfo must be an object')
  if (meta[LOG_LEVEL] !== undefined && !LOG_LEVELS.has(meta[LOG_LEVEL])) throw new Refusal(-32602, 'Invalid params: _meta logLevel is not a log level')
  if (header(req, 'mcp-protocol-version') !== version) throw new Refusal(-32020, 'Header mismatch: MCP-Protocol-Version')
  if (header(req, 'mcp-method') !== message.method) throw new Refusal(-32020, 'Header mismatch: Mcp-Method')
  if ((message.method === 'tools/call' || message.method === 'prompts/get') && typeof message.params.name === 'string' && header(req, 'mcp-name') !== message.params.name) {
    throw new Refusal(-32020, 'Header mismatch: Mcp-Name')
  }
  if (!SUPPORTED.includes(version)) throw new Refusal(-32022, 'Unsupported protocol version', { supported: SUPPORTED, requested: version.slice(0, 64) })
}

function handle (message) {
  switch (message.method) {
    case 'tools/call': {
      const tool = tools.get(message.params.name)
      if (tool === undefined) throw new Refusal(-32602, 'Unknown tool')
      const args = message.params.arguments ?? {}
      if (!tool.check.Check(args)) return { content: [{ type: 'text', text: 'Invalid arguments' }], isError: true, resultType: 'complete', _meta: RESULT_META }
      const result = tool.run(args)
      result.resultType = 'complete'
      result._meta = RESULT_META
      return result
    }
    case 'tools/list':
      return { tools: TOOL_LIST, resultType: 'complete', ttlMs: 0, cacheScope: 'private', _meta: RESULT_META }
    case 'server/discover':
      return { supportedVersions: SUPPORTED, capabilities: { tools: {} }, resultType: 'complete', _meta: RESULT_META }
    default:
      throw new Refusal(-32601, 'Method not found')
  }
}

function send (res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body))
}

const server = createServer((req, res) => {
  if (req.method !== 'POST' || req.url !== '/mcp') return res.writeHead(404).end()
  if (!(req.headers['content-type'] ?? '').startsWith('application/json')) return res.writeHead(415).end()
  const accept = req.headers.accept ?? ''
  if (!accept.includes('application/json') && !accept.includes('text/event-stream')) return res.writeHead(406).end()
  const chunks = []
  req.on('data', (chunk) => chunks.push(chunk))
  req.on('end', () => {
    let message
    try {
      message = JSON.parse(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
    } catch {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
    }
    if (!isObject(message) || message.jsonrpc !== '2.0' || typeof message.method !== 'string') {
      return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } })
    }
    // 2026-07-28 defines no client notifications over HTTP: accepted, ignored.
    if (message.id === undefined) return res.writeHead(202).end()
    const { id } = message
    if (typeof id !== 'string' && typeof id !== 'number') return send(res, 400, { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request id' } })
    try {
      admit(req, message)
      send(res, 200, { jsonrpc: '2.0', id, result: handle(message) })
    } catch (error) {
      if (!(error instanceof Refusal)) throw error
      send(res, 400, { jsonrpc: '2.0', id, error: error.data === undefined ? { code: error.code, message: error.message } : { code: error.code, message: error.message, data: error.data } })
    }
  })
})

server.listen(Number(process.env.BENCH_PORT ?? 0), '127.0.0.1', () => {
  control()
  ready({ url: `http://127.0.0.1:${server.address().port}` })
})
