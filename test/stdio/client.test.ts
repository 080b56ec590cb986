import t from 'tap'
import { connectStdio } from '../helpers/clients.js'
import { runCatalogTable } from '../helpers/catalog-table.js'
import { until } from '../helpers/wait.js'

// One child for the catalog, the cancel and the exit: a child process compiles src/ on start (~3 s
// of CPU), and these cases need nothing fresh. The exit is last: it ends the child.
t.test('the official SDK client drives a stdio server in a child process', async (t) => {
  const { client, transport } = await connectStdio('stdio-server.ts')
  t.teardown(() => client.close())

  await t.test('the catalog table', async (t) => {
    await runCatalogTable(t, client)
  })

  await t.test('cancelling a call aborts the handler in the child', async (t) => {
    const stderr: string[] = []
    transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()))
    const controller = new AbortController()
    let started!: () => void
    const progressed = new Promise<void>((resolve) => { started = resolve })
    const call = client.callTool({ name: 'wait_for_abort', arguments: { tag: 'stdio-cancel' } }, undefined, {
      signal: controller.signal,
      onprogress: () => started()
    })
    await progressed
    controller.abort('user pressed stop')
    await t.rejects(call, /user pressed stop/, 'the client call rejects locally')
    await until(() => stderr.join('').includes('ABORTED stdio-cancel'), { what: 'the handler to see ctx.signal abort' })
    t.pass('the server-side handler saw ctx.signal abort')
    t.same(await client.ping(), {}, 'the server keeps serving')
  })

  await t.test('the child exits cleanly when the client closes stdin', async (t) => {
    const pid = transport.pid
    t.ok(pid, 'child started')
    await client.close()
    // StdioClientTransport ends stdin first; a clean server exits on its own before any signal.
    t.throws(() => process.kill(pid!, 0), 'the process is gone')
  })
})

t.test('a tool registered after start() announces list_changed', async (t) => {
  const { client } = await connectStdio('stdio-server.ts', { REGISTER_LATE: '1' })
  t.teardown(() => client.close())
  const { ToolListChangedNotificationSchema } = await import('@modelcontextprotocol/sdk/types.js')
  const changed = new Promise<void>((resolve) => client.setNotificationHandler(ToolListChangedNotificationSchema, () => resolve()))
  t.notOk((await client.listTools()).tools.some((tool) => tool.name === 'late'), 'not there before')
  await client.callTool({ name: 'register-late', arguments: {} })
  await changed
  const tools = await client.listTools()
  t.ok(tools.tools.some((tool) => tool.name === 'late'), 'the new tool is listed')
})
