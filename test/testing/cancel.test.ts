// A request's signal and timeout: the client tells the server as the generation and the wire
// say (notifications/cancelled; on 2026-07-28 over HTTP, closing the request's stream), the
// handler's signal aborts, and the call rejects with the reason.
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import mcp, { ErrorCode, McpError, MCPServer, Type, type MCPRegistryApi } from '../../src/index.js'
import { createTestClient, type TestClient, type TestProtocolVersion } from '../../src/testing/index.js'

/** A tool that waits for its abort, and tells the test when it started and when it was aborted. */
function waiting (registry: MCPRegistryApi): { started: Promise<void>, aborted: () => Promise<unknown> } {
  let started = (): void => {}
  let aborted = (_reason: unknown): void => {}
  const startedP = new Promise<void>((resolve) => { started = resolve })
  let abortedP = new Promise<unknown>((resolve) => { aborted = resolve })
  registry.tool({ name: 'wait', inputSchema: Type.Object({}) }, async (_args, ctx) => {
    started()
    await new Promise<void>((resolve) => { ctx.signal.addEventListener('abort', () => { resolve() }, { once: true }) })
    aborted(ctx.signal.reason)
    abortedP = new Promise((resolve) => { aborted = resolve })
    return { content: [{ type: 'text', text: 'aborted' }] }
  })
  return { started: startedP, aborted: async () => await abortedP }
}

async function targets (t: Test): Promise<Array<{ name: string, open: (protocolVersion: TestProtocolVersion) => Promise<TestClient>, aborted: () => Promise<unknown> }>> {
  const server = new MCPServer({ name: 'cancel', version: '1.0.0', logLevel: 'silent' })
  const onServer = waiting(server)
  const app = Fastify()
  await app.register(mcp, { name: 'cancel', version: '1.0.0' })
  const onApp = waiting(app.mcp)
  t.teardown(async () => { await app.close() })
  return [
    { name: 'MCPServer', open: async (protocolVersion) => await createTestClient(server, { protocolVersion }), aborted: onServer.aborted },
    { name: 'Fastify app', open: async (protocolVersion) => await createTestClient(app, { protocolVersion }), aborted: onApp.aborted }
  ]
}

t.test('an aborted signal cancels the call; the handler sees it', async (t) => {
  for (const target of await targets(t)) {
    for (const protocolVersion of ['2026-07-28', '2025-11-25'] as TestProtocolVersion[]) {
      const client = await target.open(protocolVersion)
      const controller = new AbortController()
      const call = client.callTool('wait', {}, { signal: controller.signal })
      const aborted = target.aborted()
      setTimeout(() => { controller.abort(new Error('the test gave up')) }, 100)
      await t.rejects(call, /the test gave up/, `${target.name} ${protocolVersion}: the call rejects with the reason`)
      t.ok(await aborted, `${target.name} ${protocolVersion}: the handler's signal aborted`)
      await t.rejects(client.callTool('wait', {}, { signal: AbortSignal.abort(new Error('already')) }), /already/, 'an aborted signal sends nothing')
      await client.close()
    }
  }
})

t.test('a timeout is a cancel too, thrown as McpError -32003', async (t) => {
  for (const target of await targets(t)) {
    for (const protocolVersion of ['2026-07-28', '2025-11-25'] as TestProtocolVersion[]) {
      const client = await target.open(protocolVersion)
      const aborted = target.aborted()
      await t.rejects(client.callTool('wait', {}, { timeoutMs: 50 }), { code: ErrorCode.RequestTimeout, message: 'tools/call: no answer within 50 ms' })
      // Through inject, a 2026-07-28 answer that has not begun cannot be dropped: that handler runs until the app closes.
      if (target.name === 'MCPServer' || protocolVersion === '2025-11-25') t.ok(await aborted, `${target.name} ${protocolVersion}: the handler was aborted`)
      await client.close()
    }
  }
})

t.test('close() while a call waits: the call fails, the process is free to exit', async (t) => {
  for (const target of await targets(t)) {
    for (const protocolVersion of ['2026-07-28', '2025-11-25'] as TestProtocolVersion[]) {
      const client = await target.open(protocolVersion)
      const aborted = target.aborted()
      const call = client.callTool('wait', {}, { timeoutMs: 0 })
      await new Promise((resolve) => setTimeout(resolve, 100))
      await client.close()
      await t.rejects(call, McpError, `${target.name} ${protocolVersion}: the call fails`)
      if (target.name === 'MCPServer') t.ok(await aborted, 'the stdio runner stopped, aborting its handlers')
    }
  }
})
