import t from 'tap'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { classifyMessage, type JsonRpcMessage } from '../../src/jsonrpc/messages.js'
import type { Principal } from '../../src/protocol/principal.js'
import { Session } from '../../src/protocol/session.js'
import { testCaller } from '../helpers/caller.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'listen', version: '1.0.0' } }
const MODERN = '2026-07-28'

function setup (listen?: Partial<NonNullable<ConstructorParameters<typeof ProtocolServer>[0]['listen']>>, maxUriBytes = 64) {
  const core = new ProtocolServer({
    name: 'listen',
    version: '1.0.0',
    pageSize: 100,
    requestTimeoutMs: 1000,
    logger: { error: () => {} },
    maxUriBytes,
    ...(listen === undefined ? {} : { listen: { maxStreams: 100, maxStreamsPerPrincipal: 100, maxResourceSubscriptions: 10, ...listen } })
  })
  core.tool({ name: 'a' }, async () => ({ content: [] }))
  core.prompt({ name: 'p' }, async () => ({ messages: [] }))
  core.resource({ uri: 'mem://one', name: 'one' }, async (uri) => ({ contents: [{ uri, text: '1' }] }))
  core.resource({ uri: 'mem://files/{name}', name: 'files' }, async (uri) => ({ contents: [{ uri, text: 'f' }] }))
  let ids = 0
  /** A 2026 client: its session is ready from the start and speaks the modern revision, as the routing makes it. */
  function modern (options: { principal?: Principal, multiplexed?: boolean } = {}) {
    const sent: any[] = []
    const session = new Session(`m${++ids}`, {
      send: (message: JsonRpcMessage) => { sent.push(message) },
      close: () => {},
      multiplexed: options.multiplexed
    }, options.principal)
    session.generation = 'modern'
    session.state = 'ready'
    session.protocolVersion = MODERN
    const listens = new Map<string | number, Promise<void>>()
    let nextId = 1
    function listen (notifications: unknown, id: string | number = `listen:${nextId++}`): { id: string | number, done: Promise<void> } {
      const params = notifications === undefined ? {} : { notifications }
      const done = core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', id, method: 'subscriptions/listen', params }), testCaller(session.principal))
      listens.set(id, done)
      return { id, done }
    }
    async function cancel (requestId: string | number): Promise<void> {
      await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } }), testCaller(session.principal))
    }
    const of = (id: string | number) => sent.filter((m) => m.params?._meta?.[SUB] === id || m.result?._meta?.[SUB] === id)
    return { session, sent, listen, cancel, of }
  }
  async function legacy () {
    const sent: any[] = []
    const session = new Session(`l${++ids}`, { send: (message: JsonRpcMessage) => { sent.push(message) }, close: () => {} })
    core.addSession(session)
    const request = async (id: number, method: string, params: Record<string, unknown>) => {
      await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', id, method, params }), testCaller(session.principal))
      return sent.find((m) => m.id === id)
    }
    await request(0, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'l', version: '0' } })
    return { session, sent, request }
  }
  return { core, modern, legacy }
}

t.test('the acknowledgement comes first and names the honoured subset', async (t) => {
  const { core, modern } = setup()
  const client = modern()
  const { id } = client.listen({
    toolsListChanged: true,
    promptsListChanged: false,
    resourceSubscriptions: ['mem://one', 'mem://files/x', 'mem://one', 'mem://unknown'],
    someFutureField: true
  })
  t.equal(client.sent.length, 1)
  t.same(client.sent[0], {
    jsonrpc: '2.0',
    method: 'notifications/subscriptions/acknowledged',
    params: { notifications: { toolsListChanged: true, resourceSubscriptions: ['mem://one', 'mem://files/x'] }, _meta: { [SUB]: id } }
  }, 'false flags, unknown fields, duplicates and URIs nothing serves are left out')
  t.equal(core.listen.size, 1)
  await core.closeListenStreams()
})

t.test('list changes reach legacy sessions and the listen streams that asked, nothing else', async (t) => {
  const { core, modern, legacy } = setup()
  const old = await legacy()
  const tools = modern()
  const prompts = modern()
  const t1 = tools.listen({ toolsListChanged: true })
  const p1 = prompts.listen({ promptsListChanged: true })
  old.sent.length = 0
  core.tool({ name: 'b' }, async () => ({ content: [] }))
  t.same(old.sent.map((m) => m.method), ['notifications/tools/list_changed'], 'the 2025 session hears it unsolicited')
  t.same(tools.of(t1.id).slice(1), [{ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUB]: t1.id } } }])
  t.equal(prompts.of(p1.id).length, 1, 'a prompts-only stream got its acknowledgement and nothing more')
  const removal = core.prompt({ name: 'q' }, async () => ({ messages: [] }))
  removal.remove()
  t.same(prompts.of(p1.id).slice(1).map((m) => m.method), ['notifications/prompts/list_changed', 'notifications/prompts/list_changed'])
  t.equal(tools.of(t1.id).length, 2)
  await core.closeListenStreams()
})

t.test('notifyResourceUpdated reaches subscribed sessions and the streams listing the URI', async (t) => {
  const { core, modern, legacy } = setup()
  const old = await legacy()
  await old.request(1, 'resources/subscribe', { uri: 'mem://one' })
  const a = modern()
  const b = modern()
  const la = a.listen({ resourceSubscriptions: ['mem://one'] })
  const lb = b.listen({ resourceSubscriptions: ['mem://files/x'], resourcesListChanged: true })
  old.sent.length = 0
  t.equal(core.notifyResourceUpdated('mem://one'), 2, 'one session, one stream')
  t.same(old.sent, [{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://one' } }])
  t.same(a.of(la.id).at(-1), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'mem://one', _meta: { [SUB]: la.id } } })
  t.equal(b.of(lb.id).length, 1, 'another URI: nothing')
  t.equal(core.notifyResourceUpdated('mem://files/x'), 1)
  t.same(b.of(lb.id).at(-1).params, { uri: 'mem://files/x', _meta: { [SUB]: lb.id } })
  t.equal(core.notifyResourceUpdated('mem://nobody'), 0)
  await core.closeListenStreams()
})

t.test('broadcast: change notifications reach both generations, anything else only 2025 sessions', async (t) => {
  const { core, modern, legacy } = setup()
  const old = await legacy()
  const client = modern()
  const l = client.listen({ toolsListChanged: true, resourceSubscriptions: ['mem://one'] })
  old.sent.length = 0
  t.equal(core.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'hi' } }), 1, 'a log is for 2025 sessions only')
  t.equal(core.broadcast({ method: 'notifications/tools/list_changed' }), 2)
  t.equal(core.broadcast({ method: 'notifications/resources/updated', params: { uri: 'mem://one', _meta: { trace: 'x' } } }), 2)
  t.equal(core.broadcast({ method: 'notifications/prompts/list_changed' }), 1, 'not asked for by the stream')
  t.same(client.of(l.id).slice(1).map((m) => m.params), [
    { _meta: { [SUB]: l.id } },
    { uri: 'mem://one', _meta: { trace: 'x', [SUB]: l.id } }
  ], 'the broadcast _meta is kept beside the subscription id')
  t.equal(old.sent.length, 4)
  await core.closeListenStreams()
})

t.test('shutdown ends each stream with the complete result; stdio also says notifications/cancelled after it', async (t) => {
  const { core, modern } = setup()
  const http = modern()
  const stdio = modern({ multiplexed: true })
  const h = http.listen({ toolsListChanged: true })
  const s = stdio.listen({ toolsListChanged: true }, 7)
  await core.closeListenStreams()
  // Everything is handed over by then: a shutdown that stops writing next loses nothing.
  t.equal(stdio.sent.at(-1)?.method, 'notifications/cancelled')
  await Promise.all([h.done, s.done])
  t.same(http.sent.at(-1), { jsonrpc: '2.0', id: h.id, result: { resultType: 'complete', _meta: { [SUB]: h.id, ...SERVER_INFO } } })
  t.equal(http.sent.length, 2, 'over HTTP nothing follows the result')
  t.same(stdio.sent.slice(1), [
    { jsonrpc: '2.0', id: 7, result: { resultType: 'complete', _meta: { [SUB]: 7, ...SERVER_INFO } } },
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'the server ended the subscription', _meta: { [SUB]: 7 } } }
  ])
  t.equal(core.listen.size, 0)
  core.tool({ name: 'late' }, async () => ({ content: [] }))
  t.equal(http.sent.length, 2, 'an ended stream hears nothing more')
  await core.closeListenStreams()
})

t.test('only the kinds the server offers are honoured, as its capabilities say', async (t) => {
  const core = new ProtocolServer({ name: 'bare', version: '1.0.0', pageSize: 100, requestTimeoutMs: 1000, logger: { error: () => {} } })
  const sent: any[] = []
  const session = new Session('bare', { send: (message: JsonRpcMessage) => { sent.push(message) }, close: () => {} })
  session.generation = 'modern'
  session.state = 'ready'
  session.protocolVersion = MODERN
  core.tool({ name: 'only_tools' }, async () => ({ content: [] }))
  const request = { jsonrpc: '2.0', id: 1, method: 'subscriptions/listen', params: { notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } } }
  const done = core.dispatcher.dispatch(session, classifyMessage(request), testCaller(session.principal))
  t.same(sent[0].params.notifications, { toolsListChanged: true }, 'no prompts, no resources: not promised')
  await core.closeListenStreams()
  await done
  core.resource({ uri: 'mem://{id}', name: 'templated' }, async (uri) => ({ contents: [{ uri, text: '' }] }))
  const again = core.dispatcher.dispatch(session, classifyMessage({ ...request, id: 2 }), testCaller(session.principal))
  t.same(sent.at(-1).params.notifications, { toolsListChanged: true, resourcesListChanged: true }, 'a template is a resource offer')
  await core.closeListenStreams()
  await again
})

t.test('a filter honouring nothing is acknowledged empty and ended at once', async (t) => {
  const { core, modern } = setup()
  const client = modern()
  const l = client.listen({ resourceSubscriptions: ['mem://unknown'] })
  await l.done
  t.same(client.sent.map((m) => m.method ?? m.result), [
    'notifications/subscriptions/acknowledged',
    { resultType: 'complete', _meta: { [SUB]: l.id, ...SERVER_INFO } }
  ])
  t.same(client.sent[0].params.notifications, {})
  t.equal(core.listen.size, 0)
})

t.test('a client cancel or a closed session frees the stream; no answer is sent', async (t) => {
  const { core, modern } = setup({ maxStreamsPerPrincipal: 1 })
  const principal: Principal = { method: 'jwt', kind: 'user', issuer: 'https://id.example.com', subject: 'alice', scopes: [], claims: {} }
  const stdio = modern({ principal, multiplexed: true })
  const first = stdio.listen({ toolsListChanged: true }, 1)
  const refused = stdio.listen({ toolsListChanged: true }, 2)
  await refused.done
  t.match(stdio.sent.find((m) => m.id === 2)?.error, { code: -32603, message: /at most 1 per principal/ })
  await stdio.cancel(1)
  await first.done
  t.equal(core.listen.size, 0, 'the cancel freed the slot')
  t.notOk(stdio.sent.some((m) => m.id === 1), 'a cancelled listen gets no response')
  const before = stdio.sent.length
  core.tool({ name: 'c' }, async () => ({ content: [] }))
  t.equal(stdio.sent.length, before, 'nothing more for the cancelled stream')

  const again = stdio.listen({ toolsListChanged: true }, 3)
  t.equal(core.listen.size, 1, 'the principal may listen again')
  stdio.session.close('client gone')
  await again.done
  t.equal(core.listen.size, 0, 'a closed session frees its streams')
})

t.test('bounds: streams overall, per principal; an unauthenticated caller is its own client', async (t) => {
  const { core, modern } = setup({ maxStreams: 3, maxStreamsPerPrincipal: 2 })
  const bob = modern({ principal: { method: 'apikey', kind: 'key', subject: 'apikey:b0b', scopes: [], claims: {} } })
  const bobAgain = modern({ principal: { method: 'apikey', kind: 'key', subject: 'apikey:b0b', scopes: [], claims: {} } })
  const anon = modern()
  bob.listen({ toolsListChanged: true }, 1)
  bobAgain.listen({ toolsListChanged: true }, 1)
  await bobAgain.listen({ toolsListChanged: true }, 2).done
  t.match(bobAgain.sent.find((m) => m.id === 2).error, { code: -32603, data: { limit: 'listen.maxStreamsPerPrincipal', max: 2 } }, 'the same principal over two connections counts once')
  anon.listen({ toolsListChanged: true }, 1)
  await anon.listen({ toolsListChanged: true }, 2).done
  t.match(anon.sent.find((m) => m.id === 2).error, { code: -32603, data: { limit: 'listen.maxStreams', max: 3 } })
  t.equal(core.listen.size, 3)
  await core.closeListenStreams()
  t.equal(core.listen.size, 0)
})

t.test('bad filters are refused with -32602 and the server goes on', async (t) => {
  const { core, modern } = setup({ maxResourceSubscriptions: 2 }, 20)
  const client = modern()
  const cases: Array<[unknown, RegExp]> = [
    [undefined, /params\.notifications is required/],
    ['tools', /params\.notifications must be an object/],
    [[], /params\.notifications must be an object/],
    [null, /params\.notifications must be an object/],
    [{ toolsListChanged: 'yes' }, /toolsListChanged must be a boolean/],
    [{ resourcesListChanged: 1 }, /resourcesListChanged must be a boolean/],
    [{ resourceSubscriptions: 'mem://one' }, /resourceSubscriptions must be an array/],
    [{ resourceSubscriptions: [42] }, /resourceSubscriptions\[0\] must be an absolute URI/],
    [{ resourceSubscriptions: ['mem://one', 'relative/path'] }, /resourceSubscriptions\[1\] must be an absolute URI/],
    [{ resourceSubscriptions: ['mem://a', 'mem://b', 'mem://c'] }, /lists 3 URIs; at most 2/],
    [{ resourceSubscriptions: [`mem://${'x'.repeat(20)}`] }, /resourceSubscriptions\[0\] is longer than 20 bytes/],
    [{ resourceSubscriptions: [`mem://${'é'.repeat(8)}`] }, /resourceSubscriptions\[0\] is longer than 20 bytes/]
  ]
  for (const [index, [filter, message]] of cases.entries()) {
    const id = 100 + index
    await client.listen(filter, id).done
    const answer = client.sent.find((m) => m.id === id)
    t.match(answer, { jsonrpc: '2.0', id, error: { code: -32602, message } }, JSON.stringify(filter))
  }
  t.notOk(client.sent.some((m) => m.method !== undefined), 'no refused request was acknowledged')
  t.equal(core.listen.size, 0, 'nothing leaked')
  const ok = client.listen({ toolsListChanged: true }, 'fine')
  t.equal(client.of(ok.id).length, 1, 'a good filter still works')
  await core.closeListenStreams()
})

t.test('a 2025 session has no subscriptions/listen', async (t) => {
  const { core, legacy } = setup()
  const old = await legacy()
  const answer = await old.request(9, 'subscriptions/listen', { notifications: { toolsListChanged: true } })
  t.same(answer.error, { code: -32601, message: 'Method not found: subscriptions/listen' })
  t.equal(core.listen.size, 0)
})

t.test('many listeners: one change reaches each once, with its own id', async (t) => {
  const { core, modern } = setup({ maxStreams: 1000, maxStreamsPerPrincipal: 1000 })
  const client = modern({ multiplexed: true })
  const ids: number[] = []
  for (let i = 0; i < 1000; i++) {
    client.listen(i % 2 === 0 ? { toolsListChanged: true } : { resourceSubscriptions: ['mem://one'] }, i)
    ids.push(i)
  }
  client.sent.length = 0
  t.equal(core.notifyResourceUpdated('mem://one'), 500)
  t.equal(core.broadcast({ method: 'notifications/tools/list_changed' }), 500)
  const seen = client.sent.map((m) => m.params._meta[SUB]).sort((a, b) => a - b)
  t.same(seen, ids, 'every stream exactly once')
  t.ok(client.sent.every((m) => (m.params._meta[SUB] % 2 === 0) === (m.method === 'notifications/tools/list_changed')))
  await core.closeListenStreams()
  t.equal(core.listen.size, 0)
})

t.test('any change listener hears every change beside the sessions, until removed', async (t) => {
  const { core } = setup()
  const heard: unknown[] = []
  const remove = core.addChangeListener({ deliver: (event) => { heard.push(event); return 1 } })
  t.equal(core.notifyResourceUpdated('mem://one'), 1, 'its count is added in')
  core.tool({ name: 'heard' }, async () => ({ content: [] }))
  t.equal(core.broadcast({ method: 'notifications/message', params: { level: 'info', data: 'x' } }), 0, 'a log is no change')
  t.same(heard, [
    { kind: 'resource_updated', uri: 'mem://one', params: { uri: 'mem://one' } },
    { kind: 'list_changed', list: 'tools', params: undefined }
  ])
  remove()
  core.notifyResourceUpdated('mem://one')
  t.equal(heard.length, 2)
})
