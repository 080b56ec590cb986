// The official Python MCP client (PyPI `mcp` 2.3.0) in its default auto mode, a client nobody
// here wrote: it probes `server/discover` first and falls back to `initialize` only on a server
// that is not modern. Against ours it must stay on 2026-07-28, over Streamable HTTP and over stdio,
// and see the same catalog a 2025 client sees. The venv comes from scripts/python-client-env.sh.
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t, { type Test } from 'tap'
import { PIXEL_PNG } from './fixtures/catalog.js'
import { listeningCatalogApp } from './fixtures/http-app.js'
import { fixture } from './helpers/clients.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const script = fixture('python_client_2026.py')

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
