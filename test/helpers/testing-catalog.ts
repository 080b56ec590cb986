// What the createTestClient tests serve: a small app's tools, a resource, a prompt, each written
// once against the registry API that MCPServer and app.mcp share.
import type { MCPRegistryApi } from '../../src/index.js'
import { Type } from '../../src/index.js'

export function registerCatalog (registry: MCPRegistryApi): void {
  registry.tool({ name: 'add', description: 'Adds two numbers', inputSchema: Type.Object({ a: Type.Number(), b: Type.Number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))

  registry.tool({
    name: 'stats',
    inputSchema: Type.Object({ text: Type.String() }),
    outputSchema: Type.Object({ words: Type.Integer() })
  }, async ({ text }) => ({ structuredContent: { words: text.split(/\s+/).filter(Boolean).length } }))

  registry.tool({ name: 'steps', inputSchema: Type.Object({ count: Type.Integer() }) }, async ({ count }, ctx) => {
    for (let step = 1; step <= count; step++) {
      ctx.progress(step, count, `step ${step}`)
      ctx.log('info', `step ${step}`, 'steps')
    }
    ctx.log('debug', { done: true })
    return { content: [{ type: 'text', text: 'done' }] }
  })

  // Asks the user, then the client's model, then the client's roots: the three things a server asks of a client.
  registry.tool({ name: 'greet', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } })
    if (answer.action !== 'accept') return { content: [{ type: 'text', text: `no name (${String(answer.action)})` }] }
    const name = String((answer.content as { name: string }).name)
    const sample = await ctx.sample({ messages: [{ role: 'user', content: { type: 'text', text: `Greet ${name}` } }], maxTokens: 20 })
    const { roots } = await ctx.listRoots() as { roots: Array<{ uri: string }> }
    const said = (sample.content as { text: string }).text
    return { content: [{ type: 'text', text: `${said} (${roots.map((root) => root.uri).join(', ')})` }] }
  })

  registry.tool({ name: 'whoami', inputSchema: Type.Object({}) }, async (_args, ctx) => ({
    content: [{ type: 'text', text: ctx.auth?.subject ?? 'nobody' }]
  }))

  registry.tool({ name: 'wait', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    await new Promise<void>((resolve) => { ctx.signal.addEventListener('abort', () => { resolve() }, { once: true }) })
    return { content: [{ type: 'text', text: 'aborted' }] }
  })

  registry.resource({ uri: 'notes://today', name: 'today', mimeType: 'text/plain' }, async (uri) => ({ contents: [{ uri, text: 'buy milk' }] }))
  registry.resource({
    uri: 'notes://day/{day}',
    name: 'day',
    complete: { day: (value) => ['monday', 'tuesday', 'wednesday'].filter((day) => day.startsWith(value)) }
  }, async (uri, ctx) => ({ contents: [{ uri, text: `notes of ${ctx.params.day}` }] }))

  registry.prompt({ name: 'review', arguments: [{ name: 'code', required: true }] }, async ({ code }, ctx) => {
    const answer = await ctx.elicit({ message: 'How strict?', requestedSchema: { type: 'object', properties: { level: { type: 'string' } } } })
    return { messages: [{ role: 'user', content: { type: 'text', text: `Review (${String((answer.content as { level?: string } | undefined)?.level)}): ${code}` } }] }
  })
}
