// MCP Apps (io.modelcontextprotocol/ui) on the wire, as two official clients see it: the SDK client
// on 2025-11-25 and the SDK v2 client pinned to 2026-07-28, each once declaring UI support and once
// not. The tool's `_meta.ui` and flat `_meta["ui/resourceUri"]`, the page's MIME type and `_meta.ui`
// in resources/list and on the resources/read content, the extension in the capabilities, and
// `ctx.appsSupported` deciding what the tool's text says.
import t, { type Test } from 'tap'
import { Client as ClientV2, StreamableHTTPClientTransport as StreamableV2 } from '@modelcontextprotocol/client'
import { McpUiResourceMetaSchema, McpUiToolMetaSchema, RESOURCE_MIME_TYPE, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge'
import { MCPServer, Type } from '../../src/index.js'
import { TaskContext } from '../../src/protocol/tasks/task-context.js'
import { connectStreamable } from '../helpers/clients.js'

const APP_MIME = 'text/html;profile=mcp-app'
const UI_SUPPORT = { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [APP_MIME] } } }
const PAGE = '<!doctype html><title>Weather</title><p id="view">view</p>'
const CSP = { connectDomains: ['https://api.example.com', 'wss://live.example.com:8443'], resourceDomains: ['https://*.cdn.example.com'] }
/** The page's `_meta.ui`: what hosts build the sandbox from. */
const PAGE_UI = { csp: CSP, permissions: { clipboardWrite: {} }, domain: 'weather.example-host.com', prefersBorder: true }

interface Seen {
  capabilities: Record<string, any> | undefined
  tools: any[]
  resources: any[]
  read: (uri: string) => Promise<any>
  call: (name: string, args: Record<string, unknown>) => Promise<any>
}

async function appServer (t: Test): Promise<string> {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  // The tools first: a link may come before its page, as long as the page is there at start().
  server.tool({
    name: 'forecast',
    inputSchema: Type.Object({ city: Type.String() }),
    ui: { resourceUri: 'ui://weather/view' },
    _meta: { 'example.com/owner': 'weather-team' }
  }, async ({ city }, ctx) => ({
    content: [{ type: 'text', text: ctx.appsSupported ? `Sunny in ${city}: see the view` : `Sunny in ${city}, 21 degrees, light wind` }],
    structuredContent: { city, celsius: 21 }
  }))
  server.tool({ name: 'refresh', ui: { resourceUri: 'ui://weather/view', visibility: ['app'] } }, async () => ({ content: [{ type: 'text', text: 'refreshed' }] }))
  server.appResource({ uri: 'ui://weather/view', name: 'weather-view', title: 'Weather', description: 'The forecast, drawn', html: PAGE, ...PAGE_UI })
  server.appResource({ uri: 'ui://weather/settings', name: 'weather-settings', html: PAGE, listed: false })
  const { url } = await server.start()
  t.teardown(() => server.stop())
  return `${url}/mcp`
}

async function sdkClient (t: Test, url: string, capabilities: Record<string, unknown>): Promise<Seen> {
  const { client } = await connectStreamable(url, { capabilities })
  t.teardown(() => client.close())
  return {
    capabilities: client.getServerCapabilities(),
    tools: (await client.listTools()).tools,
    resources: (await client.listResources()).resources,
    read: async (uri) => await client.readResource({ uri }),
    call: async (name, args) => await client.callTool({ name, arguments: args })
  }
}

async function pinnedClient (t: Test, url: string, capabilities: Record<string, unknown>): Promise<Seen> {
  const client = new ClientV2({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities })
  await client.connect(new StreamableV2(new URL(url)))
  t.teardown(() => client.close())
  return {
    capabilities: client.getServerCapabilities(),
    tools: (await client.listTools()).tools,
    resources: (await client.listResources()).resources,
    read: async (uri) => await client.readResource({ uri }),
    call: async (name, args) => await client.callTool({ name, arguments: args })
  }
}

async function checkWire (t: Test, seen: Seen): Promise<void> {
  t.same(seen.capabilities?.extensions?.['io.modelcontextprotocol/ui'], {}, 'the extension is declared')
  const forecast = seen.tools.find((tool) => tool.name === 'forecast')
  t.same(forecast?._meta, {
    'example.com/owner': 'weather-team',
    ui: { resourceUri: 'ui://weather/view' },
    'ui/resourceUri': 'ui://weather/view'
  }, 'the tool links its page in _meta.ui and in the flat key older hosts read, beside its own _meta')
  t.notOk('ui' in (forecast ?? {}), 'ui itself is not a tool field on the wire')
  // The ext-apps SDK's own reading of it: its schema, and the helper hosts find the page with.
  t.ok(McpUiToolMetaSchema.safeParse(forecast?._meta?.ui).success, 'a valid McpUiToolMeta for ext-apps')
  t.equal(getToolUiResourceUri(forecast), 'ui://weather/view', 'what an ext-apps host renders')
  const refresh = seen.tools.find((tool) => tool.name === 'refresh')
  t.same(refresh?._meta?.ui, { resourceUri: 'ui://weather/view', visibility: ['app'] }, 'an app-only tool says so')

  t.same(seen.resources.map((resource) => resource.uri), ['ui://weather/view'], 'an unlisted page stays out of resources/list')
  t.same(seen.resources[0], {
    uri: 'ui://weather/view', name: 'weather-view', title: 'Weather', description: 'The forecast, drawn', mimeType: APP_MIME, _meta: { ui: PAGE_UI }
  }, 'the list entry: the app MIME type and _meta.ui')
  t.equal(seen.resources[0]?.mimeType, RESOURCE_MIME_TYPE, 'ext-apps\' MIME type')
  t.ok(McpUiResourceMetaSchema.safeParse(seen.resources[0]?._meta?.ui).success, 'a valid McpUiResourceMeta for ext-apps')
  const read = await seen.read('ui://weather/view')
  t.same(read.contents, [{ uri: 'ui://weather/view', mimeType: APP_MIME, text: PAGE, _meta: { ui: PAGE_UI } }], 'the content item carries _meta.ui too')
  const hidden = await seen.read('ui://weather/settings')
  t.same(hidden.contents, [{ uri: 'ui://weather/settings', mimeType: APP_MIME, text: PAGE }], 'an unlisted page is readable; no _meta.ui without settings')
}

t.test('2025-11-25, the official SDK client declaring UI support', async (t) => {
  const seen = await sdkClient(t, await appServer(t), UI_SUPPORT)
  await checkWire(t, seen)
  const result = await seen.call('forecast', { city: 'Oslo' })
  t.same(result.content, [{ type: 'text', text: 'Sunny in Oslo: see the view' }], 'ctx.appsSupported is true')
  t.same(result.structuredContent, { city: 'Oslo', celsius: 21 })
})

t.test('2025-11-25, a client without UI support gets the text fallback', async (t) => {
  const seen = await sdkClient(t, await appServer(t), { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/uri-list'] } } })
  const result = await seen.call('forecast', { city: 'Oslo' })
  t.same(result.content, [{ type: 'text', text: 'Sunny in Oslo, 21 degrees, light wind' }], 'the extension without the HTML profile is no UI support')
})

t.test('2026-07-28, the SDK v2 client pinned, declaring UI support', async (t) => {
  const seen = await pinnedClient(t, await appServer(t), UI_SUPPORT)
  await checkWire(t, seen)
  const result = await seen.call('forecast', { city: 'Lima' })
  t.same(result.content, [{ type: 'text', text: 'Sunny in Lima: see the view' }], 'ctx.appsSupported read from the request\'s _meta')
})

t.test('2026-07-28, a client without UI support gets the text fallback', async (t) => {
  const seen = await pinnedClient(t, await appServer(t), {})
  const result = await seen.call('forecast', { city: 'Lima' })
  t.same(result.content, [{ type: 'text', text: 'Sunny in Lima, 21 degrees, light wind' }])
  t.same(seen.tools.find((tool) => tool.name === 'forecast')?._meta?.ui, { resourceUri: 'ui://weather/view' }, 'the link is sent all the same: the host decides')
})

t.test('a task keeps the answer of the request that started it', async (t) => {
  const origin = { session: '', auth: undefined, requestId: 1, protocolVersion: '2026-07-28', meta: undefined, http: undefined, clientCapabilities: UI_SUPPORT }
  t.equal(new TaskContext({} as never, origin).appsSupported, true)
  t.equal(new TaskContext({} as never, { ...origin, clientCapabilities: {} }).appsSupported, false)
})
