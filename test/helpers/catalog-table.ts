import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Test } from 'tap'
import { PIXEL_PNG } from '../fixtures/catalog.js'

/**
 * The behaviour table every transport must pass identically. Returns the
 * observed results so callers can also compare transports with each other.
 */
export async function runCatalogTable (t: Test, client: Client): Promise<Record<string, unknown>> {
  const observed: Record<string, unknown> = {}

  const server = client.getServerVersion()
  t.same(server, { name: 'catalog', version: '1.0.0' }, 'serverInfo')
  t.ok(client.getServerCapabilities()?.tools, 'tools capability advertised')
  t.ok(client.getServerCapabilities()?.completions, 'completions capability advertised')

  const tools = await client.listTools()
  observed.tools = tools.tools.map((tool) => tool.name)
  t.ok(tools.tools.find((tool) => tool.name === 'add'), 'add listed')
  const add = tools.tools.find((tool) => tool.name === 'add')
  t.same(add?.inputSchema, { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'], additionalProperties: false }, 'TypeBox schema reaches the client as plain JSON Schema')

  const sum = await client.callTool({ name: 'add', arguments: { a: 2, b: 40 } })
  t.same(sum, { content: [{ type: 'text', text: '42' }] }, 'add')
  observed.sum = sum

  const invalid = await client.callTool({ name: 'add', arguments: { a: 'two', b: 1 } })
  t.equal(invalid.isError, true, 'invalid arguments give isError')
  t.match((invalid.content as Array<{ text: string }>)[0]?.text, /arguments\.a: must be number/, 'the problem is named')
  observed.invalid = invalid

  const missing = await client.callTool({ name: 'echo_plain', arguments: {} })
  t.match((missing.content as Array<{ text: string }>)[0]?.text, /arguments\.message: is required/, 'plain JSON Schema validated too')
  t.same(await client.callTool({ name: 'echo_plain', arguments: { message: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] })

  const weather = await client.callTool({ name: 'weather', arguments: { city: 'Oslo' } })
  t.same(weather.structuredContent, { city: 'Oslo', celsius: 21 }, 'structuredContent')
  t.same(weather.content, [{ type: 'text', text: '{"city":"Oslo","celsius":21}' }], 'text fallback for structured output')

  const exploded = await client.callTool({ name: 'explode', arguments: {} })
  t.equal(exploded.isError, true, 'a throwing handler gives isError')
  const explodedText = (exploded.content as Array<{ text: string }>)[0]?.text ?? ''
  t.match(explodedText, /kaboom/, 'with the error message')
  t.notMatch(explodedText, /at .*\.ts:\d+/, 'but no stack')
  observed.exploded = exploded

  await t.rejects(client.callTool({ name: 'forbidden', arguments: {} }), { code: -32602, message: /not allowed here/ }, 'McpError becomes a JSON-RPC error')
  await t.rejects(client.callTool({ name: 'nope', arguments: {} }), { code: -32602, message: /Unknown tool: nope/ }, 'unknown tool')

  const resources = await client.listResources()
  t.same(resources.resources.map((resource) => resource.uri).sort(), ['docs://readme', 'images://pixel.png'])
  const templates = await client.listResourceTemplates()
  t.same(templates.resourceTemplates, [{ uriTemplate: 'docs://pages/{page}', name: 'page', mimeType: 'text/markdown' }])

  const readme = await client.readResource({ uri: 'docs://readme' })
  t.same(readme, { contents: [{ uri: 'docs://readme', text: 'hello from the readme', mimeType: 'text/plain' }] }, 'text resource')
  const pixel = await client.readResource({ uri: 'images://pixel.png' })
  const blob = (pixel.contents[0] as { blob: string }).blob
  t.same(Buffer.from(blob, 'base64'), PIXEL_PNG, 'binary resource arrives byte for byte')
  t.equal(pixel.contents[0]?.mimeType, 'image/png')
  const page = await client.readResource({ uri: 'docs://pages/install' })
  t.same(page.contents, [{ uri: 'docs://pages/install', text: '# install', mimeType: 'text/markdown' }], 'template resource')
  await t.rejects(client.readResource({ uri: 'docs://missing/x' }), { code: -32002 }, 'unknown resource')
  observed.readme = readme

  const prompts = await client.listPrompts()
  t.same(prompts.prompts, [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'who', required: true }, { name: 'mood' }] }])
  const greeting = await client.getPrompt({ name: 'greet', arguments: { who: 'Ada', mood: 'cheerful' } })
  t.same(greeting.messages, [{ role: 'user', content: { type: 'text', text: 'Hello Ada (cheerful)' } }])
  await t.rejects(client.getPrompt({ name: 'greet', arguments: {} }), { code: -32602, message: /Missing required arguments for prompt greet: who/ })
  await t.rejects(client.getPrompt({ name: 'nope' }), { code: -32602 })
  observed.greeting = greeting

  const completion = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'A' } })
  t.same(completion.completion.values, ['Ada', 'Alan'])
  const templateCompletion = await client.complete({ ref: { type: 'ref/resource', uri: 'docs://pages/{page}' }, argument: { name: 'page', value: 'in' } })
  t.same(templateCompletion.completion.values, ['intro', 'install'])

  const progress: number[] = []
  const wire = tapProgress(client)
  const progressed = await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
    .finally(wire.stop)
  t.same(progressed.content, [{ type: 'text', text: 'done 3' }])
  t.same(wire.seen, [1, 2, 3, 'result'], 'progress notifications in order, before the result')
  // The SDK client runs notification handlers a microtask after response handlers, so a progress
  // read in the same chunk as its response reaches `onprogress` after the call is gone (SDK 1.32.2,
  // typescript-sdk#2580). What `onprogress` saw is therefore the wire's order, maybe short of its tail.
  t.same(progress, [1, 2, 3].slice(0, progress.length), 'onprogress saw the progress in order')
  t.ok(progress.length >= 1, 'onprogress saw progress')

  await client.setLoggingLevel('error')
  t.same(await client.ping(), {}, 'ping')
  return observed
}

/**
 * What reaches the client's transport while one call runs, in wire order: each progress value,
 * then 'result' for the first response. Read before the SDK's own handling (see above).
 */
function tapProgress (client: Client): { seen: Array<number | 'result'>, stop: () => void } {
  const transport = client.transport
  const deliver = transport?.onmessage
  if (transport === undefined || deliver === undefined) throw new Error('the client is not connected')
  const seen: Array<number | 'result'> = []
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    if ('method' in message && message.method === 'notifications/progress') seen.push(Number(message.params?.progress))
    else if ('result' in message && !seen.includes('result')) seen.push('result')
    deliver.call(transport, message, extra)
  }
  return { seen, stop: () => { transport.onmessage = deliver } }
}
