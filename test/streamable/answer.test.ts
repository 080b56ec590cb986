import { request as httpRequest } from 'node:http'
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import type { FastifyInstance } from 'fastify'
import { registerSamplingTools } from '../fixtures/sampling.js'
import { BOTH, messageOf, openSession, raw, type RawReply } from '../helpers/streamable-raw.js'
import { listeningCatalogApp } from '../helpers/serve.js'
import { sleep } from '../helpers/wait.js'

/**
 * A client that takes both JSON and an event stream (every SDK client) gets a
 * JSON answer unless the handler streams: the first message other than the
 * response upgrades the reply to an event stream at that moment.
 */

const call = (id: number, name: string, args: Record<string, unknown> = {}): Record<string, unknown> =>
  ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args, _meta: { progressToken: `p${id}` } } })
const SSE_ONLY = { ...BOTH, accept: 'text/event-stream' }
const JSON_ONLY = { ...BOTH, accept: 'application/json' }
interface Paced {
  /** Lets `stepper` go on after its first progress. */
  open: () => void
  /** Resolves once `quiet` is running. */
  quietStarted: Promise<void>
  /** Resolves once `quiet` saw its signal abort. */
  quietAborted: Promise<void>
}

function addPacedTools (app: FastifyInstance): Paced {
  let open!: () => void
  const gate = new Promise<void>((resolve) => { open = resolve })
  let started!: () => void
  const quietStarted = new Promise<void>((resolve) => { started = resolve })
  let aborted!: () => void
  const quietAborted = new Promise<void>((resolve) => { aborted = resolve })
  app.mcp.tool({ name: 'stepper', description: 'Progress, waits for the test, progress, answers' }, async (_args, ctx) => {
    ctx.progress(1, 2)
    await gate
    ctx.progress(2, 2)
    return { content: [{ type: 'text', text: 'stepped' }] }
  })
  app.mcp.tool({ name: 'quiet', description: 'Sends nothing and waits until cancelled' }, async (_args, ctx) => {
    started()
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
    aborted()
    return { content: [] }
  })
  app.mcp.tool({ name: 'close_first', description: 'Closes its stream before anything else' }, async (_args, ctx) => {
    const closed = ctx.closeStream(20)
    await sleep(30)
    return { content: [{ type: 'text', text: `closed: ${String(closed)}` }] }
  })
  return { open, quietStarted, quietAborted }
}

async function post (url: string, session: string, payload: unknown, headers: Record<string, string> = BOTH): Promise<RawReply> {
  return await raw(url, 'POST', { ...headers, 'mcp-session-id': session }, payload)
}

t.test('a client taking both gets a simple call answered as one JSON body', async (t) => {
  const { base } = await listeningCatalogApp(t)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const reply = await post(url, session, call(1, 'add', { a: 2, b: 3 }))
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^application\/json/, 'content-type: application/json')
  t.same(JSON.parse(await reply.text()), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '5' }] } }, 'the response alone')

  const failed = await post(url, session, call(2, 'forbidden'))
  t.match(failed.headers['content-type'], /^application\/json/, 'an error response too')
  t.match(JSON.parse(await failed.text()), { id: 2, error: { code: -32602 } })
  const unknown = await post(url, session, { jsonrpc: '2.0', id: 3, method: 'no/such/method' })
  t.match(JSON.parse(await unknown.text()), { id: 3, error: { code: -32601 } }, 'and a method the server lacks')

  // No stream was opened and no event id spent on those: the first stream of the session is 1, its first event 1.
  const streamed = await post(url, session, call(4, 'add', { a: 1, b: 1 }), SSE_ONLY)
  t.match(streamed.headers['content-type'], /^text\/event-stream/, 'a client taking only an event stream still gets one')
  const events = await streamed.rest()
  t.match(events, [{ id: '1_1', data: '' }, { id: '1_2' }], 'the JSON answers used no stream, event id or store record')
})

t.test('a call that reports progress first is upgraded to an event stream, live', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const paced = addPacedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const reply = await post(url, session, call(1, 'stepper'))
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], /^text\/event-stream/, 'the headers arrive with the first progress')
  const priming = await reply.next()
  t.match(priming, { id: /^\d+_\d+$/, retry: 1000, data: '' }, 'primed, as a 2025-11-25 stream is')
  const first = await reply.next()
  t.match(messageOf(first), { method: 'notifications/progress', params: { progressToken: 'p1', progress: 1 } }, 'the progress, while the handler still waits')
  paced.open()
  const rest = await reply.rest()
  t.same(rest.map((event) => messageOf(event).method ?? 'response'), ['notifications/progress', 'response'], 'then the rest, the response last, and the end')
  t.same(messageOf(rest[1] ?? {}), { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'stepped' }] } })
  const ids = [priming, first, ...rest].map((event) => event.id)
  t.ok(ids.every((id) => id !== undefined), 'every event has an id')
  t.equal(new Set(ids).size, ids.length, 'no id twice')

  const replay = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': priming.id as string })
  t.same((await replay.rest()).map((event) => event.id), ids.slice(1), 'the store holds each event once: resumable as any stream')
})

t.test('sampling from a handler upgrades the answer: the request on the stream, then the response', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const url = `${base}/mcp`
  const session = await openSession(url, '2025-11-25', { sampling: {} })
  const reply = await post(url, session, call(1, 'ask_model', { question: 'why?' }))
  t.match(reply.headers['content-type'], /^text\/event-stream/)
  t.match(await reply.next(), { data: '' }, 'primed')
  const asked = messageOf(await reply.next())
  t.match(asked, { method: 'sampling/createMessage', id: /^srv-/, params: { messages: [{ content: { text: 'why?' } }] } }, 'the sampling request, on the call\'s stream')
  const answered = await post(url, session, { jsonrpc: '2.0', id: asked.id, result: { role: 'assistant', content: { type: 'text', text: 'because' }, model: 'm' } })
  t.equal(answered.status, 202, 'the client answers with a POST')
  await answered.text()
  const rest = await reply.rest()
  t.same(rest.map(messageOf), [{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'm said: because' }] } }], 'then the response, and the end')
})

t.test('the SDK client, taking both: JSON for simple calls, a stream for progress and sampling', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  registerSamplingTools(app.mcp)
  const seen: string[] = []
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      if (init?.method === 'POST') seen.push(response.headers.get('content-type')?.split(';')[0] ?? String(response.status))
      return response
    }
  })
  const client = new Client({ name: 'both', version: '1.0.0' }, { capabilities: { sampling: {} } })
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' }))
  await client.connect(transport)
  t.teardown(() => client.close())
  seen.length = 0
  const progress: number[] = []
  const [sum, stepped, sampled] = await Promise.all([
    client.callTool({ name: 'add', arguments: { a: 1, b: 2 } }),
    client.callTool({ name: 'progress', arguments: { steps: 2 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } }),
    client.callTool({ name: 'ask_model', arguments: { question: 'q' } })
  ])
  t.same(sum.content, [{ type: 'text', text: '3' }])
  t.same(stepped.content, [{ type: 'text', text: 'done 2' }])
  t.same(progress, [1, 2], 'every progress, once')
  t.same(sampled.content, [{ type: 'text', text: 'm said: ok' }])
  t.same(seen.sort(), ['202', 'application/json', 'text/event-stream', 'text/event-stream'],
    'add as JSON; progress and ask_model as upgraded streams; the POSTed sampling answer 202')
})

t.test('ctx.closeStream() on an answer still pending as JSON upgrades, then closes', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  addPacedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  const reply = await post(url, session, call(1, 'close_first'))
  t.match(reply.headers['content-type'], /^text\/event-stream/)
  const events = await reply.rest()
  t.match(events, [{ data: '', retry: 1000 }, { data: '', retry: 20 }], 'primed as it opened, then the retry asked for, then the end')
  t.equal(events.length, 2)
  const resumed = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': events[1]?.id as string })
  t.same((await resumed.rest()).map(messageOf), [{ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'closed: true' }] } }],
    'the client resumes and gets the response')

  const old = await openSession(url, '2025-06-18')
  const forOld = await post(url, old, call(1, 'close_first'))
  t.match(forOld.headers['content-type'], /^application\/json/, 'an older client cannot resume: no upgrade, the answer stays JSON')
  t.match(JSON.parse(await forOld.text()), { result: { content: [{ text: 'closed: false' }] } })
  const jsonOnly = await post(url, session, call(2, 'close_first'), JSON_ONLY)
  t.match(JSON.parse(await jsonOnly.text()), { result: { content: [{ text: 'closed: false' }] } }, 'a client taking only JSON: false, as before')

  const { app: noStore, base: noStoreBase } = await listeningCatalogApp(t, { eventStoreSize: 0 })
  addPacedTools(noStore)
  const noStoreUrl = `${noStoreBase}/mcp`
  const withoutStore = await post(noStoreUrl, await openSession(noStoreUrl), call(1, 'close_first'))
  t.match(withoutStore.headers['content-type'], /^application\/json/, 'without a store: no upgrade either')
  t.match(JSON.parse(await withoutStore.text()), { result: { content: [{ text: 'closed: false' }] } })
})

t.test('a connection dropped before the answer: pending as JSON cancels the handler; once upgraded it is resumable', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const paced = addPacedTools(app)
  const url = `${base}/mcp`
  const session = await openSession(url)
  // The raw fixture waits for headers, which a pending JSON answer has not sent: plain node:http here.
  let answered = false
  const request = httpRequest(url, { method: 'POST', headers: { ...BOTH, 'mcp-session-id': session } })
  request.on('error', () => {})
  request.once('response', () => { answered = true })
  request.end(JSON.stringify(call(1, 'quiet')))
  await paced.quietStarted
  await sleep(20)
  t.equal(answered, false, 'nothing sent yet: the answer is pending as JSON and the client holds no event id')
  request.destroy()
  await paced.quietAborted
  t.pass('nobody could read the answer: the handler saw ctx.signal abort, as for a JSON answer')
  t.equal(app.mcp.sessionCount, 1, 'the session goes on')

  const upgraded = await post(url, session, call(2, 'stepper'))
  const priming = await upgraded.next()
  t.match(messageOf(await upgraded.next()), { method: 'notifications/progress' }, 'upgraded')
  upgraded.destroy()
  await sleep(50)
  paced.open()
  const resumed = await raw(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': session, 'last-event-id': priming.id as string })
  t.same((await resumed.rest()).map((event) => messageOf(event).method ?? messageOf(event).result.content[0].text),
    ['notifications/progress', 'notifications/progress', 'stepped'], 'after the upgrade a drop is no cancellation: the handler went on, and the client resumes')
})
