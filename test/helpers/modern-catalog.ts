// The catalog as a native 2026-07-28 client sees it (the official TypeScript SDK v2 client, pinned):
// tools (structured output, errors), resources (text, blob, templates), prompts, completion,
// progress, and logs at the level the request asks for. Driven over every transport, and through
// HAProxy in front of several instances (test/rigs/haproxy-catalog.test.ts).
import type { Test } from 'tap'
import { ProtocolError, type Client } from '@modelcontextprotocol/client'
import { PIXEL_PNG } from '../fixtures/catalog.js'

/** The same conversation over any transport: what a native 2026-07-28 client sees. */
export async function runModernCatalog (t: Test, client: Client): Promise<void> {
  t.equal(client.getProtocolEra(), 'modern', 'negotiated 2026-07-28, no initialize')
  t.match(client.getServerVersion(), { name: 'catalog', version: '1.0.0' })
  t.match(client.getDiscoverResult(), { supportedVersions: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] })

  const tools = await client.listTools()
  t.ok(tools.tools.some((tool) => tool.name === 'weather' && tool.outputSchema !== undefined), 'tools listed with their output schema')
  t.match(await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }), { content: [{ type: 'text', text: '5' }] })
  t.match(await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } }), { structuredContent: { city: 'Oslo', celsius: 21 } }, 'structured output, validated by the client')
  t.match(await client.callTool({ name: 'explode', arguments: {} }), { isError: true, content: [{ text: 'Tool explode failed: kaboom at /secret/path' }] })
  t.match(await client.callTool({ name: 'add', arguments: { a: 'x' } }), { isError: true, content: [{ text: /Invalid arguments for tool add/ }] })
  await t.rejects(client.callTool({ name: 'forbidden', arguments: {} }), { code: -32602, message: /not allowed here/ }, 'a protocol error')
  await t.rejects(client.callTool({ name: 'missing', arguments: {} }))

  t.match(await client.readResource({ uri: 'docs://readme' }), { contents: [{ uri: 'docs://readme', mimeType: 'text/plain', text: 'hello from the readme' }] })
  const pixel = await client.readResource({ uri: 'images://pixel.png' })
  t.equal((pixel.contents[0] as { blob: string }).blob, PIXEL_PNG.toString('base64'), 'a blob byte for byte')
  t.match(await client.listResourceTemplates(), { resourceTemplates: [{ uriTemplate: 'docs://pages/{page}' }] })
  t.match(await client.readResource({ uri: 'docs://pages/usage' }), { contents: [{ text: '# usage' }] })
  const missing = await client.readResource({ uri: 'docs://nope' }).catch((error: unknown) => error)
  t.ok(missing instanceof ProtocolError || (missing as { code?: number }).code === -32602, 'an unknown resource is an error')
  t.equal((missing as { code?: number }).code, -32602)

  t.match(await client.listPrompts(), { prompts: [{ name: 'greet' }] })
  t.match(await client.getPrompt({ name: 'greet', arguments: { who: 'Ada', mood: 'happy' } }), { messages: [{ content: { text: 'Hello Ada (happy)' } }] })
  t.match(await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } }), { completion: { values: ['Ada', 'Alan'] } })
  t.match(await client.complete({ ref: { type: 'ref/resource', uri: 'docs://pages/{page}' }, argument: { name: 'page', value: 'in' } }), { completion: { values: ['intro', 'install'] } })

  const logs: unknown[] = []
  client.setNotificationHandler('notifications/message', (notification) => { logs.push(notification.params) })
  const progress: number[] = []
  const done = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, { onprogress: (p) => { progress.push(p.progress) } })
  t.match(done, { content: [{ text: 'done 3' }] })
  t.same(progress, [1, 2, 3], 'progress reported on the request\'s own stream')
  t.same(logs, [], 'no logs for a request that did not ask')
  await client.callTool({ name: 'progress', arguments: { steps: 1, _unused: undefined }, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } })
  t.same(logs, [{ level: 'info', data: { done: 1 } }], 'a log at the requested level')
  await client.callTool({ name: 'progress', arguments: { steps: 1 }, _meta: { 'io.modelcontextprotocol/logLevel': 'warning' } })
  t.equal(logs.length, 1, 'an info log under a warning level stays unsent')
}
