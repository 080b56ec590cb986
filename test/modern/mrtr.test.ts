import t from 'tap'
import { McpError, Type } from '../../src/index.js'
import { ProtocolServer } from '../../src/protocol/protocol-server.js'
import { classifyMessage, type JsonRpcMessage } from '../../src/jsonrpc/messages.js'
import type { Principal } from '../../src/protocol/principal.js'
import { InflightRequest } from '../../src/protocol/inflight.js'
import { RequestContext } from '../../src/protocol/request-context.js'
import { Session } from '../../src/protocol/session.js'
import { testCaller } from '../helpers/caller.js'

// Multi-round-trip requests at the dispatcher, with throwaway per-request
// sessions marked modern, the way the 2026-07-28 transports hand requests over.

const ALL = { elicitation: {}, sampling: {}, roots: {} }
const alice: Principal = { method: 'jwt', kind: 'user', issuer: 'https://issuer.example', subject: 'alice', scopes: [], claims: {} }
const bob: Principal = { method: 'jwt', kind: 'user', issuer: 'https://issuer.example', subject: 'bob', scopes: [], claims: {} }

const NAME_QUESTION = { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }
const COLOR_QUESTION = { message: 'Favourite colour?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } } } }

function makeCore (requestState?: { secret?: string, ttlMs?: number }) {
  const logged: unknown[] = []
  const core = new ProtocolServer({
    name: 'mrtr',
    version: '1.0.0',
    pageSize: 100,
    requestTimeoutMs: 1000,
    requestState,
    logger: { error: (details) => { logged.push(details) } }
  })
  let ids = 0
  /** One 2026-07-28 request on its own session, as the stateless transports do it. */
  async function call (method: string, params: Record<string, unknown>, options: { principal?: Principal, capabilities?: Record<string, unknown> } = {}): Promise<any> {
    const sent: JsonRpcMessage[] = []
    const session = new Session(`modern-${++ids}`, { send: (message) => { sent.push(message) }, close: () => {} }, options.principal)
    session.generation = 'modern'
    session.state = 'ready'
    session.protocolVersion = '2026-07-28'
    session.clientCapabilities = options.capabilities ?? ALL
    const id = ids
    await core.dispatcher.dispatch(session, classifyMessage({ jsonrpc: '2.0', id, method, params }), testCaller(options.principal))
    const reply = sent.find((message) => 'id' in message && message.id === id) as any
    t.ok(reply, `${method} was answered`)
    t.notOk(sent.some((message) => 'method' in message && 'id' in message), 'no request ever goes to a 2026 client')
    return reply
  }
  return { core, call, logged }
}

t.test('an unanswered elicit ends the call with input_required; the retry runs the handler again with the answer', async (t) => {
  const { core, call } = makeCore()
  let runs = 0
  core.tool({ name: 'greet' }, async (_args, ctx) => {
    runs++
    const answer = await ctx.elicit(NAME_QUESTION)
    return { content: [{ type: 'text', text: `Hello, ${(answer.content as { name: string }).name}!` }] }
  })
  const first = await call('tools/call', { name: 'greet', arguments: {} })
  t.equal(first.result.resultType, 'input_required')
  const keys = Object.keys(first.result.inputRequests)
  t.equal(keys.length, 1)
  const key = keys[0] as string
  t.match(key, /^elicitation-0-[A-Za-z0-9_-]{16}$/, 'a derived key: capability, call order, digest of the question')
  t.same(first.result.inputRequests[key], { method: 'elicitation/create', params: NAME_QUESTION })
  t.type(first.result.requestState, 'string')

  const second = await call('tools/call', { name: 'greet', arguments: {}, inputResponses: { [key]: { action: 'accept', content: { name: 'Ada' } } }, requestState: first.result.requestState })
  t.same(second.result.content, [{ type: 'text', text: 'Hello, Ada!' }])
  t.notOk('inputRequests' in second.result)
  t.equal(runs, 2, 'the handler ran once per round')

  const again = await call('tools/call', { name: 'greet', arguments: {} })
  t.equal(Object.keys(again.result.inputRequests)[0], key, 'the same question gets the same key every time')
})

t.test('several rounds: clients send only the latest answers, the state carries the earlier ones', async (t) => {
  const { core, call } = makeCore()
  const sideEffects: string[] = []
  core.tool({ name: 'survey' }, async (_args, ctx) => {
    sideEffects.push('before')
    const name = await ctx.elicit(NAME_QUESTION)
    sideEffects.push('between')
    const color = await ctx.elicit({ ...COLOR_QUESTION, message: `Favourite colour, ${(name.content as { name: string }).name}?` })
    sideEffects.push('after')
    return { content: [{ type: 'text', text: `${(name.content as { name: string }).name} likes ${(color.content as { color: string }).color}` }] }
  })
  const r1 = await call('tools/call', { name: 'survey' })
  const [k1] = Object.keys(r1.result.inputRequests) as [string]
  const r2 = await call('tools/call', { name: 'survey', inputResponses: { [k1]: { action: 'accept', content: { name: 'Ada' } } }, requestState: r1.result.requestState })
  t.equal(r2.result.resultType, 'input_required')
  const [k2] = Object.keys(r2.result.inputRequests) as [string]
  t.match(k2, /^elicitation-1-/)
  t.equal(r2.result.inputRequests[k2].params.message, 'Favourite colour, Ada?', 'the second question is built from the first answer')
  t.not(r2.result.requestState, r1.result.requestState)
  const r3 = await call('tools/call', { name: 'survey', inputResponses: { [k2]: { action: 'accept', content: { color: 'blue' } } }, requestState: r2.result.requestState })
  t.same(r3.result.content, [{ type: 'text', text: 'Ada likes blue' }])
  t.same(sideEffects, ['before', 'before', 'between', 'before', 'between', 'after'], 'code before an ask runs again in every round; code after it only once answered')

  const lost = await call('tools/call', { name: 'survey', inputResponses: { [k2]: { action: 'accept', content: { color: 'blue' } } } })
  t.same(Object.keys(lost.result.inputRequests), [k1], 'without the state the earlier answer is missing, and asked again, never assumed')
})

t.test('asks made together go out in one round; a missing answer is asked again', async (t) => {
  const { core, call } = makeCore()
  core.tool({ name: 'all' }, async (_args, ctx) => {
    const [user, model, roots] = await Promise.all([
      ctx.elicit(NAME_QUESTION, { key: 'user_name' }),
      ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: 'Greet' } }], maxTokens: 50 }, { key: 'greeting' }),
      ctx.listRoots({ key: 'client_roots' })
    ])
    return { content: [{ type: 'text', text: JSON.stringify([user.content, (model.content as { text: string }).text, (roots.roots as unknown[]).length]) }] }
  })
  const r1 = await call('tools/call', { name: 'all' })
  t.same(Object.keys(r1.result.inputRequests).sort(), ['client_roots', 'greeting', 'user_name'])
  t.same(r1.result.inputRequests.client_roots, { method: 'roots/list', params: {} })
  t.equal(r1.result.inputRequests.greeting.method, 'sampling/createMessage')

  const partial = await call('tools/call', { name: 'all', inputResponses: { user_name: { action: 'accept', content: { name: 'Ada' } } }, requestState: r1.result.requestState })
  t.same(Object.keys(partial.result.inputRequests).sort(), ['client_roots', 'greeting'], 'only what is still missing is asked again')
  const done = await call('tools/call', {
    name: 'all',
    inputResponses: {
      greeting: { role: 'assistant', content: { type: 'text', text: 'Hello!' }, model: 'm', stopReason: 'endTurn' },
      client_roots: { roots: [{ uri: 'file:///a' }] },
      unexpected: { anything: true }
    },
    requestState: partial.result.requestState
  })
  t.same(done.result.content, [{ type: 'text', text: '[{"name":"Ada"},"Hello!",1]' }], 'unknown keys are ignored')
})

t.test('a changed question is never answered with the old answer', async (t) => {
  const { core, call } = makeCore()
  let amount = 10
  core.tool({ name: 'pay' }, async (_args, ctx) => {
    const confirm = await ctx.elicit({ message: `Pay ${amount} EUR?`, requestedSchema: { type: 'object', properties: {} } }, { key: 'confirm' })
    return { content: [{ type: 'text', text: `${confirm.action} ${amount}` }] }
  })
  const r1 = await call('tools/call', { name: 'pay' })
  amount = 10_000
  const stale = await call('tools/call', { name: 'pay', inputResponses: { confirm: { action: 'accept' } }, requestState: r1.result.requestState })
  t.equal(stale.result.resultType, 'input_required', 'the answer to "Pay 10 EUR?" does not confirm "Pay 10000 EUR?"')
  t.equal(stale.result.inputRequests.confirm.params.message, 'Pay 10000 EUR?')
  const fresh = await call('tools/call', { name: 'pay', inputResponses: { confirm: { action: 'accept' } }, requestState: stale.result.requestState })
  t.same(fresh.result.content, [{ type: 'text', text: 'accept 10000' }])

  // A later round must not reuse an answer kept in the state for a question that changed since.
  let step = 0
  core.tool({ name: 'twice' }, async (_args, ctx) => {
    const first = await ctx.elicit({ message: `step ${step}`, requestedSchema: { type: 'object', properties: {} } }, { key: 'k' })
    const second = await ctx.elicit(COLOR_QUESTION)
    return { content: [{ type: 'text', text: `${first.action} ${second.action}` }] }
  })
  const a = await call('tools/call', { name: 'twice' })
  const b = await call('tools/call', { name: 'twice', inputResponses: { k: { action: 'accept' } }, requestState: a.result.requestState })
  const colorKey = Object.keys(b.result.inputRequests)[0] as string
  step = 1
  const c = await call('tools/call', { name: 'twice', inputResponses: { k: { action: 'accept' }, [colorKey]: { action: 'decline' } }, requestState: b.result.requestState })
  t.same(Object.keys(c.result.inputRequests), ['k'], 'the kept answer and a resent one both belong to the old question')
})

t.test('prompts/get and resources/read ask the same way; other methods never return input_required', async (t) => {
  const { core, call } = makeCore()
  core.prompt({ name: 'ctx-prompt' }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Context?', requestedSchema: { type: 'object', properties: { context: { type: 'string' } } } }, { key: 'user_context' })
    return { messages: [{ role: 'user', content: { type: 'text', text: String((answer.content as { context: string }).context) } }] }
  })
  core.resource({ uri: 'roots://count', name: 'count' }, async (uri, ctx) => ({ contents: [{ uri, text: String(((await ctx.listRoots()).roots as unknown[]).length) }] }))
  const p1 = await call('prompts/get', { name: 'ctx-prompt' })
  t.same(Object.keys(p1.result.inputRequests), ['user_context'])
  const p2 = await call('prompts/get', { name: 'ctx-prompt', inputResponses: { user_context: { action: 'accept', content: { context: 'tea' } } }, requestState: p1.result.requestState })
  t.same(p2.result.messages, [{ role: 'user', content: { type: 'text', text: 'tea' } }])

  const r1 = await call('resources/read', { uri: 'roots://count' })
  const [key] = Object.keys(r1.result.inputRequests) as [string]
  const r2 = await call('resources/read', { uri: 'roots://count', inputResponses: { [key]: { roots: [{ uri: 'file:///a' }, { uri: 'file:///b' }] } }, requestState: r1.result.requestState })
  t.same(r2.result.contents, [{ uri: 'roots://count', text: '2' }])

  const tools = await call('tools/list', {})
  t.notOk('resultType' in tools.result && tools.result.resultType === 'input_required')
  const state = r1.result.requestState
  const crossed = await call('prompts/get', { name: 'ctx-prompt', inputResponses: { user_context: { action: 'accept', content: { context: 'x' } } }, requestState: state })
  t.match(crossed.error, { code: -32602, message: /not issued for this request/ }, 'a resources/read state does not open a prompts/get')
})

t.test('an undeclared capability is -32021 naming it; a handler may catch that and go on', async (t) => {
  const { core, call } = makeCore()
  core.tool({ name: 'test_missing_capability' }, async (_args, ctx) => {
    const answer = await ctx.sample({ messages: [], maxTokens: 5 })
    return { content: [{ type: 'text', text: String(answer.model) }] }
  })
  core.tool({ name: 'whatever_works' }, async (_args, ctx) => {
    const asks = await Promise.allSettled([ctx.elicit(NAME_QUESTION), ctx.sample({ messages: [], maxTokens: 5 }, { key: 's' })])
    return { content: [{ type: 'text', text: asks.map((ask) => ask.status).join() }] }
  })
  const refused = await call('tools/call', { name: 'test_missing_capability' }, { capabilities: {} })
  t.same(refused.error, { code: -32021, message: 'Missing required client capability: sampling', data: { requiredCapabilities: { sampling: {} } } })
  const partial = await call('tools/call', { name: 'whatever_works' }, { capabilities: { sampling: {} } })
  t.same(Object.keys(partial.result.inputRequests), ['s'], 'only what the client can answer is asked')
})

t.test('input the client sends is checked before the handler sees it', async (t) => {
  const { core, call } = makeCore()
  let runs = 0
  core.tool({ name: 'greet' }, async (_args, ctx) => {
    runs++
    const answer = await ctx.elicit(NAME_QUESTION, { key: 'user_name' })
    return { content: [{ type: 'text', text: String(answer.action) }] }
  })
  core.tool({ name: 'model' }, async (_args, ctx) => ({ content: [{ type: 'text', text: String((await ctx.sample({ messages: [], maxTokens: 1 }, { key: 'm' })).model) }] }))
  core.tool({ name: 'roots' }, async (_args, ctx) => ({ content: [{ type: 'text', text: String((await ctx.listRoots({ key: 'r' })).roots) }] }))
  // Each tool asks once first: its state is what makes an answer count (answers to questions never asked are not read).
  const stateOf = async (name: string): Promise<string> => (await call('tools/call', { name })).result.requestState
  const states = { greet: await stateOf('greet'), model: await stateOf('model'), roots: await stateOf('roots') }
  runs = 0
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['null inputResponses', { name: 'greet', inputResponses: null }, /params.inputResponses must be an object/],
    ['an array', { name: 'greet', inputResponses: [] }, /params.inputResponses must be an object/],
    ['a number as a result', { name: 'greet', inputResponses: { user_name: 12345 } }, /every value of params.inputResponses must be a result object/],
    ['an elicit result without action', { name: 'greet', inputResponses: { user_name: { content: {} } }, requestState: states.greet }, /inputResponses\["user_name"\] is not a valid elicitation\/create result: action/],
    ['elicit content not an object', { name: 'greet', inputResponses: { user_name: { action: 'accept', content: 'Ada' } }, requestState: states.greet }, /content must be an object/],
    ['a sampling result without role', { name: 'model', inputResponses: { m: { content: { type: 'text', text: '' }, model: 'x' } }, requestState: states.model }, /role must be/],
    ['a sampling result without content', { name: 'model', inputResponses: { m: { role: 'assistant', model: 'x' } }, requestState: states.model }, /content must be a content block/],
    ['a sampling result without model', { name: 'model', inputResponses: { m: { role: 'assistant', content: [] } }, requestState: states.model }, /model must be a string/],
    ['roots not an array', { name: 'roots', inputResponses: { r: { roots: 'file:///' } }, requestState: states.roots }, /roots must be an array/],
    ['requestState not a string', { name: 'greet', requestState: 7 }, /Invalid requestState: it must be the string/],
    ['requestState made up', { name: 'greet', requestState: 'eyJ4Ijo5OTk5OTk5OTk5OTk5fQ' }, /Invalid requestState: it is malformed/]
  ]
  for (const [name, params, message] of cases) {
    const reply = await call('tools/call', params)
    t.match(reply.error, { code: -32602, message }, name)
    t.notOk('data' in reply.error, `${name}: no data`)
  }
  t.equal(runs, 2, 'structural problems stop the call before the handler runs; a bad answer stops it at the ask')
  const fine = await call('tools/call', { name: 'greet', inputResponses: { user_name: { action: 'decline' } }, requestState: states.greet })
  t.same(fine.result.content, [{ type: 'text', text: 'decline' }], 'a well-formed answer to the question asked is taken')
})

t.test('an answer counts only for a question this server asked in a state it signed', async (t) => {
  const { core, call } = makeCore()
  let approved = 0
  core.tool({ name: 'transfer' }, async (_args, ctx) => {
    const approval = await ctx.elicit({ message: 'Approve the transfer?', requestedSchema: { type: 'object', properties: {} } }, { key: 'approve' })
    if (approval.action !== 'accept') return { content: [{ type: 'text', text: 'not approved' }] }
    approved++
    return { content: [{ type: 'text', text: 'transferred' }] }
  })
  const upFront = await call('tools/call', { name: 'transfer', inputResponses: { approve: { action: 'accept' } } })
  t.equal(upFront.result.resultType, 'input_required', 'an answer sent before the question was asked skips no step')
  t.same(Object.keys(upFront.result.inputRequests), ['approve'], 'the question is asked')
  t.equal(approved, 0)

  const extra = await call('tools/call', { name: 'transfer', inputResponses: { approve: { action: 'accept' }, unasked: { action: 'accept' } }, requestState: upFront.result.requestState })
  t.same(extra.result.content, [{ type: 'text', text: 'transferred' }], 'the answer to the question asked is taken; an extra one is not read')
  t.equal(approved, 1)

  // A state from a round that asked nothing under this key (here: a state issued for another key) answers nothing.
  core.tool({ name: 'other' }, async (_args, ctx) => { await ctx.elicit(NAME_QUESTION, { key: 'user_name' }); return { content: [] } })
  const foreign = await call('tools/call', { name: 'other' })
  const crossed = await call('tools/call', { name: 'transfer', inputResponses: { approve: { action: 'accept' } }, requestState: foreign.result.requestState })
  t.match(crossed.error, { code: -32602, message: /not issued for this request/ }, 'a state signed for another request is refused')
  t.equal(approved, 1)
})

t.test('a state is refused from another principal, for other arguments, when modified or expired', async (t) => {
  let now = 1_000_000
  const realNow = Date.now
  Date.now = () => now
  t.teardown(() => { Date.now = realNow })
  const { core, call } = makeCore({ secret: 'a-test-secret-that-is-long-enough-123', ttlMs: 60_000 })
  core.tool({ name: 'pay', inputSchema: Type.Object({ amount: Type.Number() }) }, async (args, ctx) => {
    const confirm = await ctx.elicit({ message: `Pay ${String(args.amount)}?`, requestedSchema: { type: 'object', properties: {} } }, { key: 'confirm' })
    return { content: [{ type: 'text', text: `${confirm.action} ${String(args.amount)}` }] }
  })
  const asked = await call('tools/call', { name: 'pay', arguments: { amount: 10 } }, { principal: alice })
  const state = asked.result.requestState as string
  const answer = { confirm: { action: 'accept' } }
  const refusals: Array<[string, Record<string, unknown>, Principal | undefined, RegExp]> = [
    ['replayed by another principal', { name: 'pay', arguments: { amount: 10 }, inputResponses: answer, requestState: state }, bob, /not issued for this request/],
    ['replayed without credentials', { name: 'pay', arguments: { amount: 10 }, inputResponses: answer, requestState: state }, undefined, /not issued for this request/],
    ['other arguments', { name: 'pay', arguments: { amount: 10_000 }, inputResponses: answer, requestState: state }, alice, /not issued for this request/],
    ['another tool', { name: 'other', arguments: { amount: 10 }, inputResponses: answer, requestState: state }, alice, /not issued for this request/],
    ['tampered', { name: 'pay', arguments: { amount: 10 }, inputResponses: answer, requestState: `${state}-TAMPERED` }, alice, /not issued for this request/]
  ]
  for (const [name, params, principal, message] of refusals) {
    const reply = await call('tools/call', params, principal === undefined ? {} : { principal })
    t.match(reply.error, { code: -32602, message }, name)
    t.notOk(JSON.stringify(reply).includes('alice'), `${name}: nothing about the owner leaks`)
  }
  const ok = await call('tools/call', { name: 'pay', arguments: { amount: 10 }, inputResponses: answer, requestState: state, _meta: { progressToken: 'p' } }, { principal: alice })
  t.same(ok.result.content, [{ type: 'text', text: 'accept 10' }], 'the owner with the same arguments completes (_meta may differ)')
  now += 60_001
  const late = await call('tools/call', { name: 'pay', arguments: { amount: 10 }, inputResponses: answer, requestState: state }, { principal: alice })
  t.match(late.error, { code: -32602, message: /expired/ })
})

t.test('a handler cannot turn an unanswered ask into a complete result', async (t) => {
  const { core, call, logged } = makeCore()
  let late: Promise<unknown> | undefined
  core.tool({ name: 'swallow' }, async (_args, ctx) => {
    let answer: Record<string, unknown>
    try {
      answer = await ctx.elicit(NAME_QUESTION)
    } catch (error) {
      t.equal((error as Error).name, 'InputRequiredError')
      t.ok(error instanceof McpError)
      answer = { action: 'cancel' }
    }
    late = new Promise((resolve) => setImmediate(resolve)).then(async () => await ctx.sample({ messages: [], maxTokens: 1 }))
    late.catch(() => {})
    return { content: [{ type: 'text', text: String(answer.action) }] }
  })
  core.tool({ name: 'throws' }, async (_args, ctx) => {
    ctx.elicit(NAME_QUESTION).catch(() => {})
    throw new Error('boom')
  })
  const swallowed = await call('tools/call', { name: 'swallow' })
  t.equal(swallowed.result.resultType, 'input_required')
  t.equal(Object.keys(swallowed.result.inputRequests).length, 1)
  await t.rejects(late as Promise<unknown>, { name: 'InputRequiredError' }, 'an ask after the round ended is refused and recorded nowhere')
  const thrown = await call('tools/call', { name: 'throws' })
  t.equal(thrown.result.resultType, 'input_required', 'the open question wins over the failure it caused')
  t.same(logged.map((entry) => (entry as { tool: string }).tool), ['throws'], 'only the real failure is logged, not the unanswered ask')
})

t.test('a handler that goes on without awaiting its ask does not hold the answer, whether it asked before or after its first await', async (t) => {
  const { core, call } = makeCore()
  const forever = new Promise<never>(() => {})
  core.tool({ name: 'at_once' }, async (_args, ctx) => {
    ctx.elicit(NAME_QUESTION).catch(() => {})
    return await forever
  })
  core.tool({ name: 'after_a_turn' }, async (_args, ctx) => {
    await new Promise((resolve) => setImmediate(resolve))
    ctx.elicit(NAME_QUESTION).catch(() => {})
    return await forever
  })
  for (const name of ['at_once', 'after_a_turn']) {
    const reply = await call('tools/call', { name })
    t.equal(reply.result.resultType, 'input_required', `${name}: answered with the open question while the handler still runs`)
    t.equal(Object.keys(reply.result.inputRequests).length, 1)
  }
})

t.test('asks outside tools, prompts and resource reads fail clearly; misuse of keys is the server\'s error', async (t) => {
  const session = new Session('modern', { send: () => {}, close: () => {} })
  session.generation = 'modern'
  session.clientCapabilities = { elicitation: {} }
  const ctx = new RequestContext(session, 1, new InflightRequest(), undefined, 1000, undefined)
  await t.rejects(ctx.elicit(NAME_QUESTION), { code: -32603, message: 'elicitation/create is only available to tools, prompts and resource reads on protocol 2026-07-28' })

  const { core, call } = makeCore()
  core.tool({ name: 'dup' }, async (_args, ctx) => {
    await Promise.allSettled([ctx.elicit(NAME_QUESTION, { key: 'same' }), ctx.elicit(COLOR_QUESTION, { key: 'same' })])
    await ctx.elicit(NAME_QUESTION, { key: 'same' })
    return { content: [] }
  })
  core.tool({ name: 'long' }, async (_args, ctx) => {
    await ctx.elicit(NAME_QUESTION, { key: 'k'.repeat(129) })
    return { content: [] }
  })
  const dup = await call('tools/call', { name: 'dup' })
  t.equal(dup.result.resultType, 'input_required')
  t.same(Object.keys(dup.result.inputRequests), ['same'])
  const long = await call('tools/call', { name: 'long' })
  t.same(long.error, { code: -32603, message: 'An input key must be 1 to 128 characters long' })
  const dupDone = await call('tools/call', { name: 'dup', inputResponses: { same: { action: 'accept' } }, requestState: dup.result.requestState })
  t.same(dupDone.error, { code: -32603, message: 'The input key "same" is used twice in one request' })
})
