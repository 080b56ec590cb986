import { Writable } from 'node:stream'
import t, { type Test } from 'tap'
import { Type } from '../../src/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { modern, postModern } from '../helpers/modern.js'
import { rpcError } from '../helpers/rpc-error.js'
import { serve } from '../helpers/serve.js'

// Issue 10, defect 11: names that come from clients (tools, prompts, templates, completion
// arguments, prompt and tool arguments) were looked up on plain objects, so `constructor`,
// `__proto__`, `valueOf`... found Object.prototype's members: completion answered -32603 and
// logged a stack, a required prompt argument named `constructor` counted as given. Lookups use
// own keys only; every test here goes through the official SDK client over Streamable HTTP.

const PROTOTYPE_NAMES = ['__proto__', 'constructor', 'valueOf', 'toString', 'hasOwnProperty', 'isPrototypeOf', '__defineGetter__']

/** The app with the names under test, its warnings collected; an SDK client connected to it. */
async function ownKeysApp (t: Test) {
  const logLines: string[] = []
  const logger = { level: 'warn', stream: new Writable({ write (chunk, _encoding, done) { logLines.push(String(chunk)); done() } }) }
  const { base } = await serve(t, { name: 'own-keys', version: '1.0.0' }, (app) => {
    app.mcp.prompt({
      name: 'greet',
      arguments: [{ name: 'who', required: true, complete: (value) => ['ada', 'alan'].filter((name) => name.startsWith(value)) }]
    }, async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Hi ${args.who}` } }] }))
    app.mcp.prompt({
      name: 'odd-names',
      arguments: [{ name: 'constructor', required: true }, { name: 'toString', required: true }]
    }, async (args) => ({ messages: [{ role: 'user', content: { type: 'text', text: `${typeof args.constructor}/${typeof args.toString}` } }] }))
    app.mcp.resource({
      uri: 'db://{schema}',
      name: 'schema',
      complete: { schema: (value) => ['public', 'private'].filter((name) => name.startsWith(value)) }
    }, async (uri) => ({ contents: [{ uri, text: 'ok' }] }))
    app.mcp.tool({
      name: 'odd-args',
      inputSchema: Type.Object({ constructor: Type.String(), valueOf: Type.Optional(Type.String()) })
    }, async (args) => ({ content: [{ type: 'text', text: `constructor=${typeof args.constructor}` }] }))
  }, { fastify: { logger } })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  return { client, logLines }
}

t.test('completion of an argument named after an Object.prototype member is empty, not -32603', async (t) => {
  const { client, logLines } = await ownKeysApp(t)
  for (const name of PROTOTYPE_NAMES) {
    const forPrompt = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name, value: '' } })
    t.same(forPrompt.completion, { values: [], total: 0, hasMore: false }, `ref/prompt argument ${name}`)
    const forTemplate = await client.complete({ ref: { type: 'ref/resource', uri: 'db://{schema}' }, argument: { name, value: '' } })
    t.same(forTemplate.completion, { values: [], total: 0, hasMore: false }, `ref/resource argument ${name}`)
  }
  const real = await client.complete({ ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'who', value: 'a' } })
  t.same(real.completion.values, ['ada', 'alan'], 'real completers still answer')
  t.same(logLines, [], 'nothing was logged: no handler failed')
})

t.test('prompts, templates and tools named after Object.prototype members are unknown', async (t) => {
  const { client, logLines } = await ownKeysApp(t)
  for (const name of PROTOTYPE_NAMES) {
    t.match(await rpcError(client.complete({ ref: { type: 'ref/prompt', name }, argument: { name: 'who', value: '' } })),
      { code: -32602, message: 'Unknown prompt' }, `completion ref/prompt ${name}`)
    t.match(await rpcError(client.complete({ ref: { type: 'ref/resource', uri: name }, argument: { name: 'schema', value: '' } })),
      { code: -32602, message: 'Unknown resource template' }, `completion ref/resource ${name}`)
    t.match(await rpcError(client.getPrompt({ name })), { code: -32602, message: /Unknown prompt/ }, `prompts/get ${name}`)
    t.match(await rpcError(client.callTool({ name, arguments: {} })), { code: -32602, message: /Unknown tool/ }, `tools/call ${name}`)
    t.match(await rpcError(client.readResource({ uri: name })), { code: -32002 }, `resources/read ${name}`)
  }
  t.same(logLines, [], 'nothing was logged')
})

t.test('a required prompt argument named constructor or toString must really be given', async (t) => {
  const { client } = await ownKeysApp(t)
  t.match(await rpcError(client.getPrompt({ name: 'odd-names', arguments: {} })),
    { code: -32602, message: /Missing required arguments for prompt odd-names: constructor, toString/ })
  const given = await client.getPrompt({ name: 'odd-names', arguments: { constructor: 'a', toString: 'b' } })
  t.same(given.messages[0]?.content, { type: 'text', text: 'string/string' }, 'given arguments reach the handler')
})

t.test('tool arguments named after Object.prototype members are validated as own properties', async (t) => {
  const { client } = await ownKeysApp(t)
  const missing = await client.callTool({ name: 'odd-args', arguments: {} })
  t.equal(missing.isError, true, 'a missing required "constructor" argument is an argument error')
  t.match(missing.content, [{ type: 'text', text: /constructor/ }])
  const given = await client.callTool({ name: 'odd-args', arguments: { constructor: 'x' } })
  t.equal(given.isError, undefined, 'an optional "valueOf" left out does not fail validation')
  t.same(given.content, [{ type: 'text', text: 'constructor=string' }])
})

t.test('2026-07-28: a mirrored parameter named after an Object.prototype member, left out, needs no header', async (t) => {
  const { base } = await serve(t, { name: 'own-keys', version: '1.0.0' }, (app) => {
    app.mcp.tool({
      name: 'mirrored',
      inputSchema: { type: 'object', properties: { toString: { type: 'string', 'x-mcp-header': 'Kind' }, region: { type: 'string', 'x-mcp-header': 'Region' } } }
    }, async (args) => ({ content: [{ type: 'text', text: JSON.stringify(args) }] }))
  })
  for (const method of ['constructor', '__proto__', 'toString']) {
    const { status, body } = await postModern(`${base}/mcp`, modern(1, method, { name: 'x', uri: 'x' }))
    t.match({ status, body }, { status: 404, body: { error: { code: -32601 } } }, `method ${method} is unknown`)
  }
  const reply = await postModern(`${base}/mcp`, modern(2, 'tools/call', { name: 'mirrored', arguments: { region: 'eu' } }), { 'mcp-param-region': 'eu' })
  t.equal(reply.status, 200, 'no Mcp-Param-Kind is required for an argument the client did not send')
  t.same(reply.body.result?.content, [{ type: 'text', text: '{"region":"eu"}' }])
})
