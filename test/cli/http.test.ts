// inspect and call against the demo server as a URL behind an API key: both generations, the
// HTTP+SSE fallback, a refused credential, an unreachable server.
import { spawn } from 'node:child_process'
import t from 'tap'
import { DEMO, runCli, waitForOutput } from '../helpers/cli.js'
import { freePort } from '../helpers/free-port.js'

const KEY = 'cli-test-key-0123456789abcdef'
const WITH_KEY = ['--header', `X-API-Key: ${KEY}`]

/** The demo over HTTP behind an API key, stopped at teardown. */
async function demoOverHttp (): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [DEMO, '--sse', '--port', String(port)], {
    env: { ...process.env, DEMO_API_KEY: KEY },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  t.teardown(() => { child.kill() })
  await waitForOutput(child, 'stderr', /listening/, 30_000)
  return `http://127.0.0.1:${port}`
}

const base = await demoOverHttp()

t.test('call and inspect over Streamable HTTP, both generations', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const run = await runCli(['call', `${base}/mcp`, 'add', 'a=2', 'b=3', '--protocol', protocol, ...WITH_KEY])
    t.equal(run.code, 0, run.stderr)
    t.equal(run.stdout, '5\n')
  }
  const auto = await runCli(['inspect', `${base}/mcp`, '--json', ...WITH_KEY])
  t.equal(auto.code, 0, auto.stderr)
  t.match(JSON.parse(auto.stdout), { protocolVersion: '2026-07-28', transport: 'Streamable HTTP', serverInfo: { name: 'demo' } }, 'auto: 2026-07-28')
  const legacy = await runCli(['inspect', `${base}/mcp`, '--protocol', '2025-11-25', ...WITH_KEY])
  t.equal(legacy.code, 0, legacy.stderr)
  t.match(legacy.stdout, /protocol\s+2025-11-25 over Streamable HTTP/)
})

t.test('no Streamable HTTP at the URL: HTTP+SSE, as real clients fall back', async (t) => {
  const sse = await runCli(['call', `${base}/sse`, 'add', 'a=1', 'b=1', ...WITH_KEY])
  t.equal(sse.code, 0, sse.stderr)
  t.equal(sse.stdout, '2\n')
})

t.test('a refused credential and an unreachable server: exit code 2, said clearly', async (t) => {
  const refused = await runCli(['call', `${base}/mcp`, 'add', 'a=1', 'b=1', '--header', 'X-API-Key: wrong-key-0123456789abcdef'])
  t.equal(refused.code, 2)
  t.match(refused.stderr, /error: HTTP 401: invalid_token: .*\(check the credential given with --header\)/)
  t.match(refused.stderr, /WWW-Authenticate: ApiKey realm="mcp"/)
  t.notMatch(refused.stderr, /wrong-key/, 'the credential is not echoed')
  const unreachable = await runCli(['inspect', `http://127.0.0.1:${await freePort()}/mcp`])
  t.equal(unreachable.code, 2)
  t.match(unreachable.stderr, /error: Cannot reach http:\/\/127\.0\.0\.1:\d+: /)
})
