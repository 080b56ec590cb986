// Ctrl-C during call: the CLI tells the server (notifications/cancelled on stdio and on a 2025
// session, closing the request's stream on 2026-07-28 over HTTP), the tool's handler sees its
// signal abort, and the CLI exits 130 once the server is done.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { fixture } from '../helpers/clients.js'
import { startCli, waitForOutput } from '../helpers/cli.js'
import { freePort } from '../helpers/free-port.js'

const SERVER = fixture('cli-server.mjs')
const scratch = mkdtempSync(join(tmpdir(), 'mcp-cli-cancel-'))
t.teardown(() => { rmSync(scratch, { recursive: true, force: true }) })

/** Runs `call <target> wait`, sends SIGINT once the handler runs, and returns the CLI's end and the handler's mark. */
async function interrupt (target: string, protocol: string, marker: string): Promise<{ code: number | null, stderr: string, mark: string }> {
  const cli = startCli(['call', target, 'wait', '--protocol', protocol], { env: { ABORT_MARKER: marker } })
  let stderr = ''
  cli.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  cli.stdout.on('data', (chunk: Buffer) => { stderr += `[stdout] ${chunk.toString()}` })
  cli.stdin.end()
  // The handler is running once its progress arrives.
  await waitForOutput(cli, 'stderr', /progress 0\/1 waiting for a cancel/, 60_000)
  cli.kill('SIGINT')
  const [code] = await once(cli, 'close') as [number | null]
  // Over HTTP the server is another process: its handler ends on its own schedule.
  for (const deadline = Date.now() + 10_000; !existsSync(marker) && Date.now() < deadline;) await sleep(50)
  return { code, stderr, mark: existsSync(marker) ? readFileSync(marker, 'utf8') : '' }
}

t.test('stdio, both generations', async (t) => {
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    const marker = join(scratch, `stdio-${protocol}`)
    const run = await interrupt(SERVER, protocol, marker)
    t.equal(run.code, 130, run.stderr)
    t.match(run.stderr, /\[info\] started/, 'logs shown as they come')
    t.match(run.stderr, /cancelled: the server was told to stop the tool/)
    t.match(run.mark, /^aborted: .*cancelled by the client/, 'the handler\'s signal aborted, with the client\'s reason')
  }
})

t.test('Streamable HTTP, both generations', async (t) => {
  const port = await freePort()
  const marker = join(scratch, 'http')
  const server = spawn(process.execPath, [...process.execArgv, SERVER], {
    env: { ...process.env, FASTIFY_MCP_SERVER_HTTP_PORT: String(port), ABORT_MARKER: marker },
    stdio: 'ignore'
  })
  t.teardown(() => { server.kill() })
  const url = `http://127.0.0.1:${port}/mcp`
  for (const deadline = Date.now() + 60_000; ;) {
    const up = await fetch(url, { method: 'DELETE' }).then(() => true, () => false)
    if (up) break
    if (Date.now() > deadline) throw new Error('the server did not listen')
    await sleep(100)
  }
  for (const protocol of ['2026-07-28', '2025-11-25']) {
    rmSync(marker, { force: true })
    const run = await interrupt(url, protocol, marker)
    t.equal(run.code, 130, `${protocol}: ${run.stderr}`)
    t.match(run.mark, /^aborted: /, `${protocol}: the handler's signal aborted`)
  }
})
