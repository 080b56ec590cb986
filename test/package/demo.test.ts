import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ensureBuilt } from '../helpers/built.js'
import { connectSse } from '../helpers/clients.js'
import { until } from '../helpers/wait.js'

// The demo runs from dist/ exactly as `npm start` runs it (npm test builds first);
// refused when dist/ is older than src/, rather than testing the last build.
const demo = fileURLToPath(new URL('../../examples/demo-server.js', import.meta.url))
ensureBuilt()

t.test('the demo server answers an MCP host over stdio', async (t) => {
  const transport = new StdioClientTransport({ command: process.execPath, args: [demo], env: { ...process.env as Record<string, string> }, stderr: 'pipe' })
  const client = new Client({ name: 'host', version: '1' })
  await client.connect(transport)
  t.teardown(() => client.close())
  t.same((await client.listTools()).tools.map((tool) => tool.name), ['add', 'current_time', 'text_stats', 'countdown'])
  t.same(await client.callTool({ name: 'add', arguments: { a: 1.5, b: 2 } }), { content: [{ type: 'text', text: '3.5' }] })
  t.same((await client.callTool({ name: 'text_stats', arguments: { text: 'one two\nthree' } })).structuredContent, { characters: 13, words: 3, lines: 2 })
  const badZone = await client.callTool({ name: 'current_time', arguments: { timeZone: 'Mars/Olympus' } })
  t.equal(badZone.isError, true, 'an unknown time zone is a tool error, not a crash')
  t.match((await client.readResource({ uri: 'demo://about' })).contents[0], { text: /fastify-mcp-server/ })
  t.match((await client.readResource({ uri: 'demo://zones/UTC' })).contents[0], { uri: 'demo://zones/UTC' })
  t.ok((await client.complete({ ref: { type: 'ref/resource', uri: 'demo://zones/{zone}' }, argument: { name: 'zone', value: 'europe/par' } })).completion.values.includes('Europe/Paris'))
  const prompt = await client.getPrompt({ name: 'summarize', arguments: { text: 'A long story.' } })
  t.match(prompt.messages[0]?.content, { type: 'text', text: /as one paragraph:\n\nA long story\./ })
})

t.test('the demo server runs over HTTP with --sse', async (t) => {
  const child = spawn(process.execPath, [demo, '--sse', '--port', '0'], { stdio: ['ignore', 'ignore', 'pipe'] })
  t.teardown(() => { child.kill('SIGTERM') })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  await until(() => /listening: (http:\/\/\S+)\/sse/.test(stderr), { timeoutMs: 30_000, what: 'the demo to listen' })
  const base = /listening: (http:\/\/\S+)\/sse/.exec(stderr)?.[1] as string
  const { client } = await connectSse(`${base}/sse`)
  t.same(await client.callTool({ name: 'add', arguments: { a: 2, b: 2 } }), { content: [{ type: 'text', text: '4' }] })
  await client.close()
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number | null]
  t.equal(code, 0, 'SIGTERM stops it cleanly')
})
