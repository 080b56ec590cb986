// The official Python MCP client (PyPI `mcp` 2.3.0) in its default auto mode, a client nobody
// here wrote: it probes `server/discover` first and falls back to `initialize` only on a server
// that is not modern. Against ours it must stay on 2026-07-28, over Streamable HTTP and over stdio,
// and see the same catalog a 2025 client sees. The venv comes from scripts/python-client-env.sh.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { PIXEL_PNG } from '../fixtures/catalog.js'
import { fixture } from '../helpers/clients.js'
import { listeningCatalogApp, serve } from '../helpers/serve.js'
import { sleep } from '../helpers/wait.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))
const script = fixture('python_client_2026.py')
const listenTasksScript = fixture('python_client_2026_listen_tasks.py')

// Creating the venv the first time installs a dozen packages: minutes, not seconds.
t.setTimeout(600_000)

async function python (): Promise<string> {
  const { stdout } = await run('bash', ['scripts/python-client-env.sh'], { cwd: root, timeout: 540_000 })
  return stdout.trim()
}

/** What the conversation must have shown, whatever the transport. */
function check (t: Test, report: Record<string, unknown>): void {
  t.equal(report.protocolVersion, '2026-07-28', 'auto mode stayed on the new revision')
  t.equal(report.serverName, 'catalog', 'serverInfo from discover')
  t.ok((report.tools as string[]).includes('weather'), 'tools listed')
  t.equal(report.add, '5')
  t.same(report.weather, { city: 'Oslo', celsius: 21 }, 'structured output')
  t.same(report.explode, { isError: true, text: 'Tool explode failed: kaboom at /secret/path' }, 'a failing handler is a tool error')
  t.equal(report.badArgs, true, 'invalid arguments are a tool error')
  t.match(report.forbidden, { code: -32602, message: /not allowed here/ }, 'a protocol error reaches the client as one')
  t.equal(report.readme, 'hello from the readme')
  t.equal(report.pixel, PIXEL_PNG.toString('base64'), 'a blob byte for byte')
  t.same(report.templates, ['docs://pages/{page}'])
  t.equal(report.page, '# usage', 'a templated resource')
  t.equal(report.missingResource, -32602, 'an unknown resource is -32602 on 2026-07-28')
  t.same(report.prompts, ['greet'])
  t.equal(report.prompt, 'Hello Ada (happy)')
  t.same(report.completion, ['Ada', 'Alan'])
  t.equal(report.progressResult, 'done 3')
  t.same(report.progress, [1, 2, 3], 'progress on the request\'s own stream')
  t.same(report.logs, [{ level: 'info', data: { done: 3 } }], 'the log the request opted into')
}

t.test('over Streamable HTTP, no session opened', async (t) => {
  const interpreter = await python()
  const { app, base } = await listeningCatalogApp(t)
  const { stdout } = await run(interpreter, [script, `${base}/mcp`], { timeout: 120_000 })
  check(t, JSON.parse(stdout) as Record<string, unknown>)
  t.equal(app.mcp.sessionCount, 0, 'a stateless client leaves no session behind')
})

t.test('over stdio, the server in a child process', async (t) => {
  const interpreter = await python()
  const command = JSON.stringify([process.execPath, ...process.execArgv, fixture('stdio-server.ts')])
  const { stdout } = await run(interpreter, [script, 'stdio', command], { timeout: 120_000 })
  check(t, JSON.parse(stdout) as Record<string, unknown>)
})

t.test('a listen stream and tasks: list_changed and a resource update heard, a task polled to completion, one cancelled', async (t) => {
  const interpreter = await python()
  let cancelled = false
  const { app, base } = await serve(t, { name: 'python-listen-tasks', version: '1.0.0' }, (app) => {
    app.mcp.resource({ uri: 'docs://readme', name: 'readme' }, async (uri) => ({ contents: [{ uri, text: 'hello' }] }))
    // Called by the client while its listen stream is open: a new tool, and the readme changed.
    app.mcp.tool({ name: 'touch' }, async () => {
      app.mcp.tool({ name: 'touched' }, async () => ({ content: [] }))
      app.mcp.notifyResourceUpdated('docs://readme')
      return { content: [{ type: 'text', text: 'touched' }] }
    })
    app.mcp.tool({
      name: 'slow_sum',
      inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
      execution: { taskSupport: 'optional' }
    }, async (args) => {
      const { a, b } = args as { a: number, b: number }
      await sleep(20)
      return { content: [{ type: 'text', text: String(a + b) }] }
    })
    app.mcp.tool({ name: 'cancel_forever', execution: { taskSupport: 'required' } }, async (_args, ctx) => {
      await new Promise((_resolve, reject) => {
        ctx.signal.addEventListener('abort', () => { cancelled = true; reject(ctx.signal.reason) }, { once: true })
      })
      return { content: [] }
    })
  })
  const { stdout } = await run(interpreter, [listenTasksScript, `${base}/mcp`], { timeout: 120_000 })
  const report = JSON.parse(stdout) as Record<string, unknown>
  t.equal(report.protocolVersion, '2026-07-28')
  t.same(report.honored, { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] }, 'the unknown URI is not acknowledged')
  t.same(report.events, ['tools', 'updated docs://readme'])
  t.equal(report.touched, true, 'the refetched list has the new tool')
  t.equal(report.taskResult, '5', 'the task result through tasks/get')
  t.equal(report.cancelledResult, 'task cancelled')
  t.same(report.statuses, { slow_sum: ['working', 'completed'], cancel_forever: ['working', 'cancelled'] })
  t.equal(cancelled, true, 'tasks/cancel aborted the handler')
  t.equal(app.mcp.sessionCount, 0)
})
