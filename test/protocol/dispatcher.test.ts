import t from 'tap'
import { Type } from '../../src/index.js'
import { classifyMessage } from '../../src/jsonrpc/messages.js'
import { memoryCore } from '../helpers/memory.js'
import { testCaller } from '../helpers/caller.js'

t.test('initialize negotiates the version and reflects what is registered', async (t) => {
  const { core, connect } = memoryCore()
  const empty = connect()
  const bare = await empty.initialize('1999-01-01')
  t.equal(bare.result.protocolVersion, '2025-11-25', 'an unknown version gets our latest')
  t.same(bare.result.capabilities, { logging: {} }, 'nothing registered, nothing advertised')

  core.tool({ name: 't' }, async () => ({ content: [] }))
  core.resource({ uri: 'a://b', name: 'b' }, async (uri) => ({ contents: [{ uri, text: '' }] }))
  core.prompt({ name: 'p' }, async () => ({ messages: [] }))
  const full = await connect().initialize('2025-03-26')
  t.equal(full.result.protocolVersion, '2025-03-26')
  t.same(full.result.capabilities, { logging: {}, tools: { listChanged: true }, resources: { subscribe: true, listChanged: true }, prompts: { listChanged: true } })
  t.same(full.result.serverInfo, { name: 'memory', version: '1.0.0' })

  const bad = await connect().request('initialize', { capabilities: {} })
  t.same(bad.error, { code: -32602, message: 'params.protocolVersion must be a string' })
})

t.test('lists page with opaque cursors; a bad cursor is -32602', async (t) => {
  const { core, connect } = memoryCore({ pageSize: 2 })
  for (const name of ['a', 'b', 'c', 'd', 'e']) core.tool({ name }, async () => ({ content: [] }))
  const client = connect()
  await client.initialize()
  const names: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const page = await client.request('tools/list', cursor === undefined ? {} : { cursor })
    names.push(...page.result.tools.map((tool: { name: string }) => tool.name))
    cursor = page.result.nextCursor
    pages++
  } while (cursor !== undefined)
  t.same(names, ['a', 'b', 'c', 'd', 'e'])
  t.equal(pages, 3)
  for (const cursor of ['nonsense', 42, Buffer.from('o:-1').toString('base64url')]) {
    t.same((await client.request('tools/list', { cursor })).error, { code: -32602, message: 'Invalid cursor' })
  }
})

t.test('responses are shaped to the negotiated version', async (t) => {
  const { core, connect } = memoryCore()
  core.tool({
    name: 'modern',
    title: 'Modern tool',
    icons: [{ src: 'https://example.com/i.png' }],
    annotations: { readOnlyHint: true },
    inputSchema: Type.Object({}),
    outputSchema: Type.Object({ n: Type.Number() })
  }, async () => ({ structuredContent: { n: 1 } }))
  const old = connect()
  await old.initialize('2024-11-05')
  const [oldTool] = (await old.request('tools/list')).result.tools
  t.notOk('title' in oldTool || 'icons' in oldTool || 'outputSchema' in oldTool || 'annotations' in oldTool, '2024-11-05 sees none of the newer fields')
  const oldCall = await old.request('tools/call', { name: 'modern', arguments: {} })
  t.same(oldCall.result, { content: [{ type: 'text', text: '{"n":1}' }] }, 'no structuredContent before 2025-06-18')

  const mid = connect()
  await mid.initialize('2025-06-18')
  const [midTool] = (await mid.request('tools/list')).result.tools
  t.equal(midTool.title, 'Modern tool')
  t.notOk('icons' in midTool, 'icons are 2025-11-25')

  const latest = connect()
  await latest.initialize()
  const [tool] = (await latest.request('tools/list')).result.tools
  t.same(tool.icons, [{ src: 'https://example.com/i.png' }])
  t.same((await latest.request('tools/call', { name: 'modern', arguments: {} })).result.structuredContent, { n: 1 })
})

t.test('tool results are checked against outputSchema and the result shape', async (t) => {
  const { core, connect, logged } = memoryCore()
  core.tool({ name: 'no_structured', outputSchema: { type: 'object' } }, async () => ({ content: [] }))
  core.tool({ name: 'wrong_structured', outputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } }, async () => ({ structuredContent: { n: 'x' } }))
  core.tool({ name: 'nothing' }, async () => ({}) as never)
  // eslint-disable-next-line no-throw-literal -- the point: a handler that throws a non-Error
  core.tool({ name: 'throws_string' }, async () => { throw 'plain string' as unknown as Error })
  const client = connect()
  await client.initialize()
  t.match((await client.request('tools/call', { name: 'no_structured' })).error, { code: -32603, message: /declares an outputSchema but returned no structuredContent/ })
  t.match((await client.request('tools/call', { name: 'wrong_structured' })).error, { code: -32603, message: /structuredContent\.n: must be number/ })
  t.match((await client.request('tools/call', { name: 'nothing' })).error, { code: -32603, message: /neither content nor structuredContent/ })
  t.same((await client.request('tools/call', { name: 'throws_string' })).result, { content: [{ type: 'text', text: 'Tool throws_string failed: plain string' }], isError: true })
  t.equal(logged.length, 1, 'the failure reached the server log')
  t.same((await client.request('tools/call', { name: 'nothing', arguments: 'x' })).error, { code: -32602, message: 'params.arguments must be an object' })
  t.same((await client.request('tools/call', {})).error, { code: -32602, message: 'params.name must be a string' })
})

t.test('an unexpected failure outside tools is -32603 with no detail, logged for the operator', async (t) => {
  const { core, connect, logged } = memoryCore()
  core.resource({ uri: 'x://secret', name: 'x' }, async () => { throw new Error('password=hunter2') })
  core.resource({ uri: 'x://bad', name: 'bad' }, async () => ({ contents: [{ uri: 'x://bad' }] }) as never)
  core.resource({ uri: 'x://badblob', name: 'bb' }, async () => ({ contents: [{ uri: 'x://badblob', blob: 5 }] }) as never)
  core.resource({ uri: 'x://none', name: 'none' }, async () => ({}) as never)
  core.prompt({ name: 'broken' }, async () => ({}) as never)
  const client = connect()
  await client.initialize()
  const reply = await client.request('resources/read', { uri: 'x://secret' })
  t.same(reply.error, { code: -32603, message: 'Internal error' })
  t.notMatch(JSON.stringify(client.sent), /hunter2/, 'the message never reaches the client')
  t.match(logged[0]?.details, { method: 'resources/read' })
  t.match((await client.request('resources/read', { uri: 'x://bad' })).error, { code: -32603, message: /text or blob/ })
  t.match((await client.request('resources/read', { uri: 'x://badblob' })).error, { code: -32603, message: /base64 string or a Uint8Array/ })
  t.match((await client.request('resources/read', { uri: 'x://none' })).error, { code: -32603, message: /no contents array/ })
  t.match((await client.request('prompts/get', { name: 'broken' })).error, { code: -32603, message: /no messages array/ })
  t.match((await client.request('prompts/get', { name: 'broken', arguments: { n: 1 } })).error, { code: -32602, message: /must be strings: n/ })
})

t.test('logging/setLevel filters ctx.log', async (t) => {
  const { core, connect } = memoryCore()
  core.tool({ name: 'chatty' }, async (_args, ctx) => {
    ctx.log('debug', 'noise')
    ctx.log('error', { failed: true }, 'db')
    return { content: [] }
  })
  const client = connect()
  await client.initialize()
  t.same((await client.request('logging/setLevel', { level: 'loud' })).error?.code, -32602)
  await client.request('logging/setLevel', { level: 'warning' })
  await client.request('tools/call', { name: 'chatty' })
  const logs = client.sent.filter((message) => message.method === 'notifications/message')
  t.same(logs.map((message) => message.params), [{ level: 'error', data: { failed: true }, logger: 'db' }])
})

t.test('subscriptions and resources/updated', async (t) => {
  const { core, connect } = memoryCore()
  core.resource({ uri: 'files://{+path}', name: 'files' }, async (uri, ctx) => ({ contents: [{ uri, text: ctx.params.path }] }))
  const a = connect()
  const b = connect()
  await a.initialize()
  await b.initialize()
  t.same((await a.request('resources/read', { uri: 'files://dir/sub/file.txt' })).result.contents[0].text, 'dir/sub/file.txt', '{+path} spans slashes')
  t.same((await a.request('resources/subscribe', { uri: 'files://a.txt' })).result, {})
  t.equal((await a.request('resources/subscribe', { uri: 'nope://x' })).error.code, -32002)
  t.equal(core.notifyResourceUpdated('files://a.txt'), 1, 'only the subscriber is told')
  t.same(a.sent.at(-1), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'files://a.txt' } })
  await a.request('resources/unsubscribe', { uri: 'files://a.txt' })
  t.equal(core.notifyResourceUpdated('files://a.txt'), 0)
})

t.test('completion/complete errors and limits', async (t) => {
  const { core, connect } = memoryCore()
  core.prompt({ name: 'many', arguments: [{ name: 'n', complete: () => Array.from({ length: 150 }, (_, i) => String(i)) }, { name: 'plain' }] }, async () => ({ messages: [] }))
  const client = connect()
  await client.initialize()
  const many = await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'many' }, argument: { name: 'n', value: '' } })
  t.equal(many.result.completion.values.length, 100)
  t.same([many.result.completion.total, many.result.completion.hasMore], [150, true])
  t.same((await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'many' }, argument: { name: 'plain', value: '' } })).result.completion.values, [], 'no completer, no values')
  t.equal((await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'nope' }, argument: { name: 'n', value: '' } })).error.code, -32602)
  t.equal((await client.request('completion/complete', { ref: { type: 'ref/resource', uri: 'x://{y}' }, argument: { name: 'y', value: '' } })).error.code, -32602)
  t.equal((await client.request('completion/complete', { ref: { type: 'ref/other' }, argument: { name: 'n', value: '' } })).error.code, -32602)
  t.equal((await client.request('completion/complete', {})).error.code, -32602)
})

t.test('cancellation aborts the handler and suppresses the answer', async (t) => {
  const { core, connect } = memoryCore()
  let seen: unknown
  core.tool({ name: 'slow' }, async (_args, ctx) => {
    await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve, { once: true }))
    seen = ctx.signal.reason
    return { content: [] }
  })
  const client = connect()
  await client.initialize()
  const pending = client.request('tools/call', { name: 'slow' })
  await client.notify('notifications/cancelled', { requestId: 2, reason: 'changed my mind' })
  t.equal(await pending, undefined, 'no response is sent for a cancelled request')
  t.match(seen, { message: /changed my mind/ })
  t.equal(client.session.inflightCount, 0)
  await client.notify('notifications/cancelled', { requestId: 99 })
  await client.notify('notifications/whatever')
  t.pass('unknown cancels and notifications are ignored')
})

t.test('server-to-client requests: capability, answer, error, timeout, close', async (t) => {
  const { core, connect } = memoryCore({ requestTimeoutMs: 50 })
  // Request timers are unref'd (they must not hold a server open); hold this test process open instead.
  const keepAlive = setInterval(() => {}, 1000)
  t.teardown(() => clearInterval(keepAlive))
  core.tool({ name: 'ask' }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [], maxTokens: 5 })
    return { content: [{ type: 'text', text: JSON.stringify(answer) }] }
  })
  core.tool({ name: 'roots' }, async (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(await ctx.listRoots()) }] }))
  core.tool({ name: 'elicit' }, async (_args, ctx) => ({ content: [{ type: 'text', text: JSON.stringify(await ctx.elicit({ message: 'name?', requestedSchema: { type: 'object', properties: {} } })) }] }))

  const plain = connect()
  await plain.initialize()
  // An McpError from ctx.sample propagates as the call's JSON-RPC error unless the tool catches it.
  t.same((await plain.request('tools/call', { name: 'ask' })).error, { code: -32601, message: 'The client does not support sampling' })

  const capable = connect()
  await capable.initialize('2025-11-25', { sampling: {}, roots: {}, elicitation: {} })
  const call = capable.request('tools/call', { name: 'ask' })
  await new Promise((resolve) => setImmediate(resolve))
  const outgoing = capable.sent.find((message) => message.method === 'sampling/createMessage')
  t.ok(outgoing, 'the server asked the client')
  await core.dispatcher.dispatch(capable.session, classifyMessage({ jsonrpc: '2.0', id: outgoing.id, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } }), testCaller())
  t.match((await call).result.content[0].text, /"model":"m"/)

  const failing = capable.request('tools/call', { name: 'roots' })
  await new Promise((resolve) => setImmediate(resolve))
  const rootsRequest = capable.sent.find((message) => message.method === 'roots/list')
  await core.dispatcher.dispatch(capable.session, classifyMessage({ jsonrpc: '2.0', id: rootsRequest.id, error: { code: -1, message: 'no roots for you' } }), testCaller())
  t.same((await failing).error, { code: -1, message: 'no roots for you' }, "the client's error comes back as the call's error")

  t.same((await capable.request('tools/call', { name: 'elicit' })).error, { code: -32003, message: 'No answer to elicitation/create within 50 ms' }, 'times out')
  t.notOk(capable.session.receiveResponse({ jsonrpc: '2.0', id: 'srv-unknown', result: {} }), 'an unmatched response is ignored')

  const closing = capable.request('tools/call', { name: 'ask' })
  await new Promise((resolve) => setImmediate(resolve))
  capable.session.close('bye')
  t.equal(await closing, undefined, 'a closed session gets no answer')
  t.equal(capable.closedCount(), 1)
  t.equal(core.sessionCount, 1, 'the closed session left the core')
  await t.rejects(capable.session.request('ping', undefined, { timeoutMs: 10 }), { message: 'Session closed', code: -32004 }, 'a request on a closed session: ConnectionClosed, distinct from RequestTimeout and SessionNotFound')
})

t.test('broadcast reaches initialized sessions only, serialized once', async (t) => {
  const { core, connect } = memoryCore()
  const ready = connect()
  await ready.initialize()
  connect()
  t.equal(core.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'hi' } }), 1)
  t.same(ready.sent.at(-1), { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } })
  core.tool({ name: 'new' }, async () => ({ content: [] }))
  t.same(ready.sent.at(-1), { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }, 'registration announces list_changed')
  core.closeAllSessions('done')
  t.equal(core.sessionCount, 0)
})
