// dev --http: the server file is served over HTTP at a URL that survives restarts; a saved edit
// of a tool's file is answered by the restarted server within 5 s; a syntax error is reported
// and the next good save recovers.
import { once } from 'node:events'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { startCli, waitForOutput } from '../helpers/cli.js'
import { coldStartMs, devProject, restartBound } from '../helpers/dev-project.js'
import { freePort } from '../helpers/free-port.js'
import { headersFor, modern } from '../helpers/modern.js'

/** `greet` called over Streamable HTTP (2026-07-28); its text, or undefined while nothing answers. */
async function greet (url: string): Promise<string | undefined> {
  const body = modern(1, 'tools/call', { name: 'greet', arguments: { name: 'Ada' } })
  try {
    const res = await fetch(url, { method: 'POST', headers: headersFor(body), body: JSON.stringify(body) })
    const answer = await res.json() as { result?: { content?: Array<{ text?: string }> } }
    return answer.result?.content?.[0]?.text
  } catch {
    return undefined
  }
}

/** Calls `greet` until it answers `expected`; the time it took, or a failure past `deadlineMs`. */
async function answersWithin (url: string, expected: string, deadlineMs: number): Promise<number> {
  const started = Date.now()
  let last: string | undefined
  while (Date.now() - started < deadlineMs) {
    last = await greet(url)
    if (last === expected) return Date.now() - started
    await sleep(50)
  }
  throw new Error(`no "${expected}" within ${deadlineMs} ms (last answer: ${String(last)})`)
}

t.test('edit, restart, syntax error, recovery', async (t) => {
  const project = devProject(t, 'Hello')
  const port = await freePort()
  const url = `http://127.0.0.1:${port}/mcp`
  const cli = startCli(['dev', project.server, '--http', '--port', String(port)], { cwd: project.dir })
  let stderr = ''
  cli.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  // SIGINT, not SIGKILL: dev stops its server (which shares our stderr pipe) before it goes.
  t.teardown(async () => {
    if (cli.exitCode !== null || cli.signalCode !== null) return
    cli.kill('SIGINT')
    await once(cli, 'close')
  })
  await waitForOutput(cli, 'stderr', new RegExp(`ready at ${url}`), 60_000)
  t.match(stderr, new RegExp(`dev: serving server\\.mjs at ${url} \\(HTTP\\+SSE: /sse\\); restarts on changes under ${project.dir}`))
  t.equal(await greet(url), 'Hello Ada')

  let bound = restartBound(await coldStartMs(project.server))
  project.setGreeting('Bonjour')
  const restarted = await answersWithin(url, 'Bonjour Ada', bound)
  t.ok(restarted < bound, `the restarted server answered with the new behaviour after ${restarted} ms (bound ${bound} ms)`)
  t.match(stderr, /dev: tools\/greet\.mjs changed: restarting/)

  // Measured again while the file still runs: the load of a shared machine moves.
  bound = restartBound(await coldStartMs(project.server))
  project.breakTool()
  await waitForOutput(cli, 'stderr', /server\.mjs exited with code 1: fix it and save/, 10_000)
  t.match(stderr, /SyntaxError/, 'the error itself, as node printed it')
  t.equal(await greet(url), undefined, 'nothing listens while the file does not run')

  project.setGreeting('Hola')
  const recovered = await answersWithin(url, 'Hola Ada', bound)
  t.ok(recovered < bound, `the next good save recovered in ${recovered} ms (bound ${bound} ms)`)

  cli.kill('SIGINT')
  const [code] = await once(cli, 'close') as [number | null]
  t.equal(code, 0, 'Ctrl-C ends dev')
  t.equal(await greet(url), undefined, 'and the server with it')
})
