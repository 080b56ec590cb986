// The middleware chain's own contract, at its edges: what a middleware may get wrong (next() twice,
// no result object, a throw before any await) is an error the dispatcher answers, never a hang or a
// crash; the order and a notification's undefined result. The transports' view is middleware.test.ts.
import t from 'tap'
import { McpError } from '../../src/index.js'
import { runChain, type Middleware, type Operation } from '../../src/protocol/authz/middleware.js'

const op = (notification = false): Operation => ({ method: 'tools/call', name: 'x', params: { name: 'x' }, principal: undefined, protocolVersion: '2025-11-25', transport: 'stdio', notification })
const handler = async (): Promise<Record<string, unknown>> => ({ content: [] })

t.test('registration order, outermost first; the handler runs once, last', async (t) => {
  const seen: string[] = []
  const chain: Middleware[] = [
    async (_op, next) => { seen.push('a>'); const r = await next(); seen.push('<a'); return r },
    (_op, next) => { seen.push('b'); return next() }
  ]
  t.same(await runChain(chain, op(), async () => { seen.push('handler'); return { ok: true } }), { ok: true })
  t.same(seen, ['a>', 'b', 'handler', '<a'])
  t.same(await runChain([], op(), handler), { content: [] }, 'no middleware: the handler alone')
})

t.test('next() twice is an internal error; the handler ran once', async (t) => {
  let ran = 0
  const twice: Middleware = async (_op, next) => { await next(); return await next() }
  await t.rejects(runChain([twice], op(), async () => { ran++; return {} }), new McpError(-32603, 'A middleware called next() twice'))
  t.equal(ran, 1)
})

t.test('a request answered with no result object is an internal error; a notification may answer nothing', async (t) => {
  for (const answer of [undefined, null, 42, 'text', [1]]) {
    await t.rejects(runChain([() => answer as never], op(), handler), { code: -32603, message: /tools\/call answered with no result object/ }, `answer ${JSON.stringify(answer)}`)
  }
  t.equal(await runChain([() => undefined], op(true), handler), undefined)
})

t.test('a middleware that throws before any await rejects the chain (it does not throw out of it)', async (t) => {
  const sync: Middleware = () => { throw new McpError(-32010, 'refused at once') }
  const running = runChain([sync], op(), handler)
  t.type(running, Promise)
  await t.rejects(running, { code: -32010, message: 'refused at once' })
  const inner: Middleware = () => { throw new Error('inner') }
  await t.rejects(runChain([async (_op, next) => await next(), inner], op(), handler), { message: 'inner' }, 'thrown inside next(): a rejection of next()')
})
