// The middleware catalog: two middleware and the tools that show what they did, shared by the
// middleware tests on every transport (in-process, and in the stdio fixture).
import { McpError, Type, type MCPRegistryApi, type Operation } from '../../src/index.js'

/** Code of the error the outer middleware maps a tool's failure to. */
export const MAPPED_CODE = -32010

/**
 * - the outer middleware (added first) wraps `order`'s text with `outer`, answers `cached` itself
 *   (short-circuit) and maps a -32011 from below to {@link MAPPED_CODE};
 * - the inner one wraps `order`'s text with `inner` and rewrites `greet`'s argument to upper case
 *   (also when `greet` runs as a task);
 * - both record the notifications they see, with their `notification` mark, for `seen`.
 */
export function registerMiddlewareCatalog (server: MCPRegistryApi): void {
  const notifications: string[] = []
  const seenOps: Array<Pick<Operation, 'method' | 'name' | 'transport' | 'notification'>> = []
  server.use(async (op, next) => {
    if (op.notification) notifications.push(`${op.method}:${String(op.notification)}`)
    else seenOps.push({ method: op.method, name: op.name, transport: op.transport, notification: op.notification })
    if (op.name === 'cached') return { content: [{ type: 'text', text: 'from middleware' }] }
    try {
      const result = await next()
      if (op.name === 'order') return wrap(result, 'outer')
      return result
    } catch (error) {
      if (error instanceof McpError && error.code === -32011) throw new McpError(MAPPED_CODE, `mapped: ${error.message}`)
      throw error
    }
  })
  server.use(async (op, next) => {
    if (op.name === 'greet' || op.name === 'greet_task') {
      const args = op.params.arguments as { name?: unknown } | undefined
      op.params = { ...op.params, arguments: { name: String(args?.name).toUpperCase() } }
    }
    const result = await next()
    return op.name === 'order' ? wrap(result, 'inner') : result
  })
  server.tool({ name: 'order', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'handler' }] }))
  server.tool({ name: 'greet', inputSchema: Type.Object({ name: Type.String() }) }, async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name}` }] }))
  server.tool({ name: 'greet_task', inputSchema: Type.Object({ name: Type.String() }), execution: { taskSupport: 'optional' } }, async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name}` }] }))
  server.tool({ name: 'cached', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: 'from handler' }] }))
  server.tool({ name: 'failing', inputSchema: Type.Object({}) }, async () => { throw new McpError(-32011, 'the backend is down') })
  server.tool({ name: 'seen', inputSchema: Type.Object({}) }, async () => ({ content: [{ type: 'text', text: JSON.stringify({ notifications, ops: seenOps.slice(-3) }) }] }))
}

function wrap (result: Record<string, unknown> | undefined, by: string): Record<string, unknown> {
  const content = (result?.content as Array<{ text: string }> | undefined) ?? []
  return { ...result, content: [{ type: 'text', text: `${content[0]?.text ?? ''}>${by}` }] }
}
