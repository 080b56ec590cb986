import t, { type Test } from 'tap'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CreateMessageRequestSchema, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { connectSse, connectStdio, connectStreamable } from '../helpers/clients.js'
import { registerSamplingTools } from '../fixtures/sampling.js'
import { listeningCatalogApp } from '../helpers/serve.js'

const CAPABILITIES = { sampling: {}, elicitation: {} }

/** Answers sampling and elicitation like a host would, recording what the server asked. */
function answerLikeAHost (client: Client): { asked: unknown[] } {
  const asked: unknown[] = []
  client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
    asked.push(request.params)
    // Content may be one block or (since 2025-11-25) several; the tools send one text block.
    const question = request.params.messages[0]?.content as { text?: string } | undefined
    const text = question?.text ?? ''
    return { role: 'assistant', content: { type: 'text', text: `an answer to "${text}"` }, model: 'test-model', stopReason: 'endTurn' }
  })
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    asked.push(request.params)
    return { action: 'accept', content: { name: 'Ada' } }
  })
  return { asked }
}

/** The same sampling and elicitation round trips, whatever the transport. */
async function roundTrips (t: Test, client: Client): Promise<void> {
  const { asked } = answerLikeAHost(client)
  const sampled = await client.callTool({ name: 'ask_model', arguments: { question: 'why?' } })
  t.same(sampled.content, [{ type: 'text', text: 'test-model said: an answer to "why?"' }], 'the model answer reaches the tool')
  const elicited = await client.callTool({ name: 'ask_user', arguments: { message: 'Who are you?' } })
  t.same(elicited.content, [{ type: 'text', text: 'user accept: {"name":"Ada"}' }], 'the user answer reaches the tool')
  t.match(asked, [
    { messages: [{ role: 'user', content: { type: 'text', text: 'why?' } }], maxTokens: 50 },
    { message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
  ], 'the client saw both requests as the tool made them')

  // Several at once: each answer goes back to the call that asked.
  const answers = await Promise.all(['one', 'two', 'three'].map(async (question) =>
    await client.callTool({ name: 'ask_model', arguments: { question } })))
  t.same(answers.map((answer) => (answer.content as Array<{ text: string }>)[0]?.text),
    ['test-model said: an answer to "one"', 'test-model said: an answer to "two"', 'test-model said: an answer to "three"'])
}

t.test('sampling and elicitation over stdio', async (t) => {
  const { client } = await connectStdio('stdio-sampling-server.ts', {}, { capabilities: CAPABILITIES })
  t.teardown(() => client.close())
  await roundTrips(t, client)
})

t.test('sampling and elicitation over legacy SSE', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const { client } = await connectSse(`${base}/sse`, { capabilities: CAPABILITIES })
  t.teardown(() => client.close())
  await roundTrips(t, client)
})

t.test('sampling and elicitation over Streamable HTTP', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const { client } = await connectStreamable(`${base}/mcp`, { capabilities: CAPABILITIES })
  t.teardown(() => client.close())
  await roundTrips(t, client)
})

t.test('a client without the capability gets a clear error, on every transport', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const streamable = await connectStreamable(`${base}/mcp`)
  t.teardown(() => streamable.client.close())
  await t.rejects(streamable.client.callTool({ name: 'ask_model', arguments: { question: 'hi' } }), { code: -32601, message: /does not support sampling/ })
  const sse = await connectSse(`${base}/sse`)
  t.teardown(() => sse.client.close())
  await t.rejects(sse.client.callTool({ name: 'ask_user', arguments: { message: 'hi' } }), { code: -32601, message: /does not support elicitation/ })
})

t.test('the client answering with an error fails the tool call cleanly (Streamable HTTP)', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const { client } = await connectStreamable(`${base}/mcp`, { capabilities: CAPABILITIES })
  t.teardown(() => client.close())
  client.setRequestHandler(CreateMessageRequestSchema, async () => { throw new Error('the user said no') })
  await t.rejects(client.callTool({ name: 'ask_model', arguments: { question: 'hi' } }), { message: /the user said no/ })
})
