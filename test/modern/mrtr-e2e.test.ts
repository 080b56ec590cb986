// Multi-round-trip requests end to end: the official TS SDK v2 client pinned to 2026-07-28 over
// Streamable HTTP and stdio answers elicitation, sampling and roots through input_required rounds,
// with the same handlers that serve 2025 sessions live requests; raw HTTP shows the wire and every
// refused requestState.
import t, { type Test } from 'tap'
import { Client as ModernClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { Type } from '../../src/index.js'
import { registerSamplingTools, registerSurveyTool } from '../fixtures/sampling.js'
import { connectStreamable, fixture } from '../helpers/clients.js'
import { catalogApp, listeningCatalogApp } from '../helpers/serve.js'
import { injectModern, modern } from '../helpers/modern.js'

const CAPABILITIES = { sampling: {}, elicitation: {}, roots: {} }
const CAPS_META = { 'io.modelcontextprotocol/clientCapabilities': CAPABILITIES }

/** A v2 client pinned to 2026-07-28 that answers like a host, recording what it was asked. */
function pinnedClient (): { client: ModernClient, asked: string[] } {
  const client = new ModernClient({ name: 'tap-v2', version: '1.0.0' }, {
    capabilities: CAPABILITIES,
    versionNegotiation: { mode: { pin: '2026-07-28' } }
  })
  const asked: string[] = []
  client.setRequestHandler('sampling/createMessage', async (request) => {
    const text = (request.params.messages[0]?.content as { text?: string } | undefined)?.text ?? ''
    asked.push(`sample: ${text}`)
    return { role: 'assistant', content: { type: 'text', text: `an answer to "${text}"` }, model: 'test-model', stopReason: 'endTurn' }
  })
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = String((request.params as { message?: unknown }).message)
    asked.push(`elicit: ${message}`)
    const content: Record<string, string> = message.startsWith('Colour') ? { color: 'blue' } : { name: 'Ada' }
    return { action: 'accept', content }
  })
  client.setRequestHandler('roots/list', async () => {
    asked.push('roots')
    return { roots: [{ uri: 'file:///work', name: 'work' }] }
  })
  return { client, asked }
}

async function exercise (t: Test, client: ModernClient, asked: string[]): Promise<void> {
  const sampled = await client.callTool({ name: 'ask_model', arguments: { question: 'why?' } })
  t.same(sampled.content, [{ type: 'text', text: 'test-model said: an answer to "why?"' }], 'sampling through MRTR')
  const elicited = await client.callTool({ name: 'ask_user', arguments: { message: 'Who are you?' } })
  t.same(elicited.content, [{ type: 'text', text: 'user accept: {"name":"Ada"}' }], 'elicitation through MRTR')
  const survey = await client.callTool({ name: 'survey', arguments: {} })
  t.same(survey.content, [{ type: 'text', text: 'Ada likes blue in file:///work' }], 'three rounds, earlier answers carried in requestState')
  t.same(asked, ['sample: why?', 'elicit: Who are you?', 'elicit: Name?', 'elicit: Colour, Ada?', 'roots'], 'each question asked once')
}

t.test('SDK v2 client pinned to 2026-07-28 over Streamable HTTP: sampling, elicitation, roots by MRTR', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  registerSurveyTool(app.mcp)
  const bodies: any[] = []
  const { client, asked } = pinnedClient()
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    fetch: async (url, init) => {
      if (typeof init?.body === 'string') bodies.push(JSON.parse(init.body))
      return await fetch(url, init)
    }
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  await exercise(t, client, asked)

  const calls = bodies.filter((body) => body.method === 'tools/call' && body.params.name === 'survey')
  t.equal(calls.length, 4, 'survey took four requests: three rounds of input, then the result')
  t.notOk('inputResponses' in calls[0].params, 'the first has no answers')
  t.same(calls.slice(1).map((call) => Object.keys(call.params.inputResponses).length), [1, 1, 1], 'each retry carries only the latest round\'s answer')
  t.ok(calls.slice(1).every((call) => typeof call.params.requestState === 'string'), 'and echoes the state')
  t.equal(new Set(calls.map((call) => call.id)).size, 4, 'every attempt has its own id')
  t.notOk(bodies.some((body) => body.method === 'initialize'), 'no handshake: the client stayed on 2026-07-28')

  // The same handlers still make live requests for a 2025 session on the same endpoint.
  const legacy = await connectStreamable(`${base}/mcp`, { capabilities: { elicitation: {} } })
  t.teardown(() => legacy.client.close())
  legacy.client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Grace' } }))
  const live = await legacy.client.callTool({ name: 'ask_user', arguments: { message: 'Who?' } })
  t.same(live.content, [{ type: 'text', text: 'user accept: {"name":"Grace"}' }], 'a 2025 session gets a live elicitation')
})

t.test('SDK v2 client pinned to 2026-07-28 over stdio: the same rounds', async (t) => {
  const { client, asked } = pinnedClient()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...process.execArgv, fixture('stdio-sampling-server.ts')],
    env: process.env as Record<string, string>,
    stderr: 'pipe'
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  await exercise(t, client, asked)
})

t.test('raw HTTP: input_required, the retry, -32021 as HTTP 400', async (t) => {
  const app = await catalogApp(t)
  registerSamplingTools(app.mcp)
  const first = await injectModern(app, modern(1, 'tools/call', { name: 'ask_user', arguments: { message: 'Who?' } }, CAPS_META))
  t.equal(first.statusCode, 200)
  const { result } = first.json()
  t.equal(result.resultType, 'input_required')
  const [key] = Object.keys(result.inputRequests) as [string]
  t.match(result.inputRequests[key], { method: 'elicitation/create', params: { message: 'Who?' } })
  t.notOk(first.headers['mcp-session-id'])
  const second = await injectModern(app, modern(2, 'tools/call', {
    name: 'ask_user', arguments: { message: 'Who?' }, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: result.requestState
  }, CAPS_META))
  t.match(second.json(), { id: 2, result: { resultType: 'complete', content: [{ type: 'text', text: 'user accept: {"name":"Ada"}' }] } })

  const missing = await injectModern(app, modern(3, 'tools/call', { name: 'ask_model', arguments: { question: 'q' } }))
  t.equal(missing.statusCode, 400)
  t.same(missing.json(), { jsonrpc: '2.0', id: 3, error: { code: -32021, message: 'Missing required client capability: sampling', data: { requiredCapabilities: { sampling: {} } } } })
})

t.test('raw HTTP: a requestState is refused from another principal, with other params, modified, expired or from another key', async (t) => {
  const realNow = Date.now
  let offset = 0
  Date.now = () => realNow() + offset
  t.teardown(() => { Date.now = realNow })
  const KEYS = ['alice-key-0123456789abcdefghijklmnopqrstuv', 'bob-key-0123456789abcdefghijklmnopqrstuvwx']
  const SECRET = 'shared-replica-secret-0123456789abcdefghij'
  const options = { auth: { type: 'apikey' as const, options: { keys: KEYS } }, requestState: { secret: SECRET, ttlMs: 60_000 } }
  const app = await catalogApp(t, options)
  const replica = await catalogApp(t, options)
  const stranger = await catalogApp(t, { auth: options.auth })
  for (const server of [app, replica, stranger]) {
    server.mcp.tool({ name: 'pay', inputSchema: Type.Object({ amount: Type.Number() }) }, async ({ amount }, ctx) => {
      const confirm = await ctx.elicit({ message: `Pay ${amount}?`, requestedSchema: { type: 'object', properties: {} } }, { key: 'confirm' })
      return { content: [{ type: 'text', text: `${String(confirm.action)} ${amount}` }] }
    })
  }
  const alice = { 'x-api-key': KEYS[0] as string }
  const bob = { 'x-api-key': KEYS[1] as string }
  const asked = await injectModern(app, modern(1, 'tools/call', { name: 'pay', arguments: { amount: 10 } }, CAPS_META), alice)
  const state = asked.json().result.requestState as string
  const retry = (amount: number, requestState: string) => modern(2, 'tools/call', { name: 'pay', arguments: { amount }, inputResponses: { confirm: { action: 'accept' } }, requestState }, CAPS_META)

  const refusals: Array<[string, FastifyInstance, Record<string, unknown>, Record<string, string>, RegExp]> = [
    ['replayed by another principal', app, retry(10, state), bob, /not issued for this request/],
    ['other arguments', app, retry(10_000, state), alice, /not issued for this request/],
    ['modified', app, retry(10, `${state.slice(0, 20)}x${state.slice(21)}`), alice, /not issued for this request|malformed/],
    ['a server with another key', stranger, retry(10, state), alice, /not issued for this request/]
  ]
  for (const [name, server, body, headers, message] of refusals) {
    const reply = await injectModern(server, body, headers)
    t.equal(reply.statusCode, 200, `${name}: an ordinary JSON-RPC error answer`)
    t.match(reply.json(), { id: 2, error: { code: -32602, message } }, name)
    t.notOk(reply.body.includes(SECRET) || reply.body.includes(KEYS[0] as string), `${name}: nothing secret in the answer`)
  }
  t.match((await injectModern(replica, retry(10, state), alice)).json(), { result: { content: [{ text: 'accept 10' }] } }, 'a replica with the same secret completes it')
  t.match((await injectModern(app, modern(3, 'tools/list', {}), alice)).json(), { result: { tools: [] } }, 'the server keeps serving')
  offset = 60_001
  t.match((await injectModern(app, retry(10, state), alice)).json(), { id: 2, error: { code: -32602, message: /expired/ } }, 'expired')
})
