import { performance } from 'node:perf_hooks'
import t, { type Test } from 'tap'
import { MCPServer, type MCPPluginOptions } from '../../src/index.js'
import { connectStreamable } from '../helpers/clients.js'
import { rpcError } from '../helpers/rpc-error.js'
import { serve } from '../helpers/serve.js'

// Issue 10, defect 1, over real sockets with the official SDK client: a URI built to make the
// old backtracking template matcher try every split no longer blocks the server, a URI longer
// than `maxUriBytes` is refused before any matching, wherever a client sends one.

const MiB = 1024 * 1024

/** The app with the `db://{schema}.{table}` template (Fastify's bodyLimit 16 MiB), and an SDK client connected to it. */
async function templateApp (t: Test, options: Partial<MCPPluginOptions> = {}) {
  const { app, base } = await serve(t, { name: 'uris', version: '1.0.0', ...options }, (app) => {
    app.mcp.resource({ uri: 'db://{schema}.{table}', name: 'table', complete: { schema: () => ['public'] } },
      async (uri, ctx) => ({ contents: [{ uri, text: `${ctx.params.schema}|${ctx.params.table}` }] }))
  }, { fastify: { bodyLimit: 16 * MiB } })
  const { client } = await connectStreamable(`${base}/mcp`)
  t.teardown(() => client.close())
  return { app, base, client }
}

t.test('a URI over maxUriBytes (8192 by default) is refused with -32602 on every method that takes one', async (t) => {
  const { client } = await templateApp(t)
  const atLimit = 'db://' + 'a'.repeat(8192 - 'db://'.length - 2) + '.b'
  const read = await client.readResource({ uri: atLimit })
  t.equal((read.contents[0] as { text: string }).text.length, 8192 - 'db://'.length, 'a URI of exactly 8192 bytes is served')
  const over = atLimit + 'c'
  const multibyte = 'db://' + 'é'.repeat(4094) + '.b' // 4,101 characters, 8,195 bytes
  const refusal = { code: -32602, message: /params\.uri is longer than maxUriBytes \(8192 bytes\)/, data: { maxUriBytes: 8192 } }
  for (const uri of [over, multibyte, 'db://' + '.'.repeat(100_000) + '/']) {
    t.match(await rpcError(client.readResource({ uri })), refusal, `resources/read of ${uri.length} characters`)
    t.match(await rpcError(client.subscribeResource({ uri })), refusal, 'resources/subscribe')
    t.match(await rpcError(client.unsubscribeResource({ uri })), refusal, 'resources/unsubscribe')
    t.match(await rpcError(client.complete({ ref: { type: 'ref/resource', uri }, argument: { name: 'schema', value: '' } })),
      { code: -32602, message: /params\.ref\.uri|params\.uri/ }, 'completion/complete with a template reference')
  }
  t.same(await client.ping(), {}, 'the session goes on serving')
})

t.test('the worst template shape over the wire: multi-megabyte URIs, work linear in their length', async (t) => {
  const { client } = await templateApp(t, { maxUriBytes: 8 * MiB, bodyLimit: 16 * MiB })
  // The URI: every dot is a candidate split for {schema}.{table}, and "/" ends the
  // match only at the very end. A backtracking matcher spent ~5 s on 100,000 dots.
  const worst = (size: number): string => 'db://' + '.'.repeat(size) + '/'
  const timed = async (size: number): Promise<number> => {
    let best = Infinity
    for (let i = 0; i < 3; i++) {
      const began = performance.now()
      t.match(await rpcError(client.readResource({ uri: worst(size) })), { code: -32002 }, `no resource for ${size} dots`)
      best = Math.min(best, performance.now() - began)
    }
    return best
  }
  const small = await timed(MiB / 2)
  const large = await timed(4 * MiB)
  // Linear work makes 8x the URI cost about 8x (less: fixed costs); the old matcher's 64x
  // would not even finish here. Compared within this run, never against a wall-clock figure.
  t.ok(large / small < 20, `4 MiB took ${large.toFixed(1)} ms, 0.5 MiB ${small.toFixed(1)} ms: ${(large / small).toFixed(1)}x for 8x the URI`)
  const matched = await client.readResource({ uri: 'db://' + 'a.'.repeat(MiB) + 'b' })
  t.equal((matched.contents[0] as { text: string }).text.length, 2 * MiB + 1, 'a 2 MiB URI that matches is split and served')
})

t.test('maxUriBytes is validated with the other options', async (t) => {
  for (const bad of [0, -1, 1.5, '8192']) {
    t.throws(() => new MCPServer({ maxUriBytes: bad as never }), { code: 'FST_MCP_INVALID_OPTIONS', problems: [{ path: 'maxUriBytes' }] }, JSON.stringify(bad))
  }
  t.equal(new MCPServer({ maxUriBytes: 100 }).options.maxUriBytes, 100)
})
