// The official TypeScript SDK v2 client (@modelcontextprotocol/client 2.4.0), pinned to 2026-07-28 so
// that it cannot fall back to initialize, against the shared catalog over Streamable HTTP and stdio:
// tools (structured output, errors), resources (text, blob, templates), prompts, completion,
// progress, and logs at the level the request asks for.
import t from 'tap'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { fixture } from '../helpers/clients.js'
import { runModernCatalog } from '../helpers/modern-catalog.js'
import { listeningCatalogApp } from '../helpers/serve.js'

function pinnedClient (): Client {
  return new Client({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } })
}

t.test('over Streamable HTTP', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const client = pinnedClient()
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)))
  t.teardown(() => client.close())
  await runModernCatalog(t, client)
  t.equal(app.mcp.sessionCount, 0, 'no session was opened')
})

t.test('over stdio, a real child process', async (t) => {
  const client = pinnedClient()
  await client.connect(new StdioClientTransport({
    command: process.execPath,
    args: [...process.execArgv, fixture('stdio-server.ts')],
    env: { ...process.env as Record<string, string> },
    stderr: 'pipe'
  }))
  t.teardown(() => client.close())
  await runModernCatalog(t, client)
})
