// The official Python MCP client (PyPI `mcp` 2.3.0) in its default auto mode: it probes
// server/discover, stays on 2026-07-28, and answers sampling, elicitation and roots through
// input_required rounds with the callbacks a host registers. The venv comes from
// scripts/python-client-env.sh (run by .ci/run).
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { registerSamplingTools, registerSurveyTool } from '../fixtures/sampling.js'
import { listeningCatalogApp } from '../helpers/serve.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))

// Creating the venv the first time installs a dozen packages: minutes, not seconds.
t.setTimeout(600_000)

t.test('Python mcp 2.x in auto mode stays on 2026-07-28 and answers through MRTR', async (t) => {
  const { stdout: venv } = await run('bash', ['scripts/python-client-env.sh'], { cwd: root, timeout: 540_000 })
  const methods: string[] = []
  const { app, base } = await listeningCatalogApp(t, {}, {
    before: (app) => {
      app.addHook('preHandler', async (request) => {
        const body = request.body as { method?: unknown } | undefined
        if (request.method === 'POST' && typeof body?.method === 'string') methods.push(body.method)
      })
    }
  })
  registerSamplingTools(app.mcp)
  registerSurveyTool(app.mcp)
  const { stdout } = await run(venv.trim(), [fileURLToPath(new URL('../fixtures/python_mrtr_client.py', import.meta.url)), `${base}/mcp`], { timeout: 120_000 })
  t.same(JSON.parse(stdout), {
    protocolVersion: '2026-07-28',
    texts: ['python-model said: an answer to "why?"', 'user accept: {"name":"Guido"}', 'Guido likes green in file:///py'],
    asked: ['sample: why?', 'elicit: Who?', 'elicit: Name?', 'elicit: Colour, Guido?', 'roots']
  })
  t.notOk(methods.includes('initialize'), 'no handshake: the client never fell back')
  t.equal(methods.filter((method) => method === 'tools/call').length, 2 + 2 + 4, 'one retry per round: ask_model 2, ask_user 2, survey 4')
  t.equal(app.mcp.sessionCount, 0, 'no session was opened')
})
