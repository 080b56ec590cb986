// MCP Apps definitions are checked where they are written: a synchronous coded error naming the
// definition for a URI that is not ui://, CSP entries that are not origins, a bad link; and a tool
// linked to a page that does not exist when the server starts fails start() (and the plugin's ready()).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import Fastify from 'fastify'
import mcp, { MCPServer } from '../../src/index.js'
import { isCspOrigin } from '../../src/extensions/apps/csp.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'

const html = '<!doctype html><p>view</p>'

function thrown (fn: () => unknown): (Error & { code?: string }) | undefined {
  try {
    fn()
  } catch (error) {
    return error as Error & { code?: string }
  }
  return undefined
}

t.test('an app resource needs a ui:// URI', async (t) => {
  const server = new MCPServer()
  for (const uri of ['https://example.com/view', 'ui:', 'ui://with space', 42]) {
    t.throws(() => server.appResource({ uri: uri as string, name: 'view', html }), { code: 'FST_MCP_INVALID_DEFINITION', message: /app resource .*uri must be a ui:\/\/ URI/ }, `refused: ${String(uri)}`)
  }
})

t.test('CSP entries must be origins, or the wildcard-subdomain origins the spec allows', async (t) => {
  const server = new MCPServer()
  const accepted = ['https://api.example.com', 'https://*.example.com', 'wss://live.example.com:8443', 'http://127.0.0.1:3000', 'https://[::1]:8443']
  for (const origin of accepted) t.ok(isCspOrigin(origin), `an origin: ${origin}`)
  const refused = [
    'api.example.com', 'https://api.example.com/', 'https://api.example.com/path', 'https://user@api.example.com', 'https://api.example.com?q',
    'HTTPS://API.EXAMPLE.COM', 'https://*', 'https://a.*.example.com', '*', "'self'", 'data:', 'ftp://files.example.com', 'javascript:alert(1)'
  ]
  for (const entry of refused) {
    t.notOk(isCspOrigin(entry), `not an origin: ${entry}`)
    const error = thrown(() => server.appResource({ uri: 'ui://app/view', name: 'view', html, csp: { resourceDomains: ['https://ok.example.com', entry] } }))
    t.equal(error?.code, 'FST_MCP_INVALID_DEFINITION', `refused in csp: ${entry}`)
    t.ok(error?.message.includes(`ui://app/view: csp.resourceDomains[1] must be an origin such as https://api.example.com or https://*.example.com; got ${JSON.stringify(entry)}`), 'the message names the page, the list, the entry')
  }
  t.throws(() => server.appResource({ uri: 'ui://app/view', name: 'view', html, csp: { scriptDomains: [] } as never }), { message: /csp has no list "scriptDomains"/ })
  t.throws(() => server.appResource({ uri: 'ui://app/view', name: 'view', html, csp: { connectDomains: 'https://a.example.com' } as never }), { message: /csp\.connectDomains must be an array/ })
})

t.test('the rest of the definition is checked too', async (t) => {
  const server = new MCPServer()
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a' }), { message: /ui:\/\/app\/a: give exactly one of html and file/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a', html, file: 'x.html' }), { message: /exactly one of html and file/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: '', html }), { message: /name must be a non-empty string/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a', html, permissions: { usb: {} } as never }), { message: /permissions has no "usb"/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a', html, prefersBorder: 'yes' as never }), { message: /prefersBorder must be a boolean/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a', html, mimeType: 'text/html' } as never), { message: /unknown field "mimeType"/ })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'a', file: '/no/such/page.html' }), { message: /file \/no\/such\/page\.html is not a readable file/ })
  server.appResource({ uri: 'ui://app/a', name: 'a', html })
  t.throws(() => server.appResource({ uri: 'ui://app/a', name: 'again', html }), { code: 'FST_MCP_DUPLICATE_DEFINITION' })
})

t.test('a page in a file is read on each read', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-app-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const file = join(dir, 'view.html')
  writeFileSync(file, '<p>one</p>')
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, { stateless: true })
  app.mcp.appResource({ uri: 'ui://app/file', name: 'file', file })
  await app.ready()
  const read = async (): Promise<unknown> => {
    const response = await app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read', 'mcp-name': 'ui://app/file' },
      payload: { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'ui://app/file', _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } }
    })
    return response.json().result.contents[0].text
  }
  t.equal(await read(), '<p>one</p>')
  writeFileSync(file, '<p>two</p>')
  t.equal(await read(), '<p>two</p>', 'an edited page is served as it is now')
})

t.test('a tool\'s link is checked when registered', async (t) => {
  const server = new MCPServer()
  t.throws(() => server.tool({ name: 'a', ui: { resourceUri: 'https://example.com/view' } }, () => ({})), { code: 'FST_MCP_INVALID_DEFINITION', message: /tool definition: a: ui\.resourceUri must be the ui:\/\/ URI/ })
  t.throws(() => server.tool({ name: 'b', ui: { resourceUri: 'ui://x', visibility: [] } }, () => ({})), { message: /b: ui\.visibility must list 'model' and\/or 'app'/ })
  t.throws(() => server.tool({ name: 'c', ui: { resourceUri: 'ui://x', visibility: ['agent'] as never } }, () => ({})), { message: /c: ui\.visibility/ })
  t.throws(() => server.tool({ name: 'd', ui: { resourceUri: 'ui://x', visibility: ['app', 'app'] } }, () => ({})), { message: /d: ui\.visibility/ })
  t.throws(() => server.tool({ name: 'e', ui: { resourceUri: 'ui://x', csp: {} } as never }, () => ({})), { message: /e: ui has no field "csp"/ })
  t.throws(() => server.tool({ name: 'f', ui: { resourceUri: 'ui://x' }, _meta: { ui: { resourceUri: 'ui://y' } } }, () => ({})), { message: /f: give the app link as ui, not also in _meta/ })
})

t.test('a tool linked to a page missing at start() fails start(), naming the tool and the URI', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  t.teardown(() => server.stop())
  server.tool({ name: 'forecast', ui: { resourceUri: 'ui://weather/view' } }, () => ({ content: [] }))
  server.appResource({ uri: 'ui://weather/other', name: 'other', html })
  await t.rejects(server.start(), { code: 'FST_MCP_INVALID_DEFINITION', message: /forecast: ui\.resourceUri ui:\/\/weather\/view names no registered resource/ })
})

t.test('a page removed before start() counts as missing; a page registered after its tool is fine', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  t.teardown(() => server.stop())
  server.tool({ name: 'forecast', ui: { resourceUri: 'ui://weather/view' } }, () => ({ content: [] }))
  const page = server.appResource({ uri: 'ui://weather/view', name: 'view', html })
  page.remove()
  await t.rejects(server.start(), { message: /forecast: ui\.resourceUri ui:\/\/weather\/view names no registered resource/ })

  const second = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  t.teardown(() => second.stop())
  second.tool({ name: 'forecast', ui: { resourceUri: 'ui://weather/view' } }, () => ({ content: [] }))
  second.appResource({ uri: 'ui://weather/view', name: 'view', html })
  const { url } = await second.start()
  t.match(url, /^http:\/\/127\.0\.0\.1:\d+$/, 'started')
})

t.test('the plugin: app.mcp.appResource, and ready() rejects a dangling link', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, {})
  app.mcp.tool({ name: 'forecast', ui: { resourceUri: 'ui://weather/view' } }, () => ({ content: [] }))
  await t.rejects(async () => { await app.ready() }, { code: 'FST_MCP_INVALID_DEFINITION', message: /forecast: ui\.resourceUri ui:\/\/weather\/view names no registered resource/ })
})

t.test('a core built without extensions says so rather than dropping what it cannot serve', async (t) => {
  const core = new ProtocolServer({ name: 'bare', version: '1.0.0', pageSize: 10, requestTimeoutMs: 1000, logger: { error: () => {} } })
  t.throws(() => core.tool({ name: 'linked', ui: { resourceUri: 'ui://x' } }, () => ({})), { code: 'FST_MCP_INVALID_DEFINITION', message: /linked: ui links an app, and this server has no MCP Apps extension/ })
  t.throws(() => core.appResource({ uri: 'ui://x', name: 'x', html }), /built without extensions/)
  t.throws(() => core.skill({ name: 'x', files: {} }), /built without extensions/)
  t.throws(() => core.skills('.'), /built without extensions/)
})
