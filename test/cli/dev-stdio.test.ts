// dev on stdio, as a host launches it: the official SDK client keeps its one 2025 session across
// restarts (dev replays the session to the new process and says the lists changed); an edit is
// answered within 5 s; while the file has a syntax error a call gets an error saying so, and the
// next good save recovers.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { CLI } from '../helpers/cli.js'
import { coldStartMs, devProject, restartBound } from '../helpers/dev-project.js'

t.test('one session across edits, a syntax error and its fix', async (t) => {
  const project = devProject(t, 'Hello')
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...process.execArgv, CLI, 'dev', project.server],
    cwd: project.dir,
    env: { ...process.env as Record<string, string>, NO_COLOR: '1' },
    stderr: 'pipe'
  })
  let stderr = ''
  transport.stderr?.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const client = new Client({ name: 'dev-host', version: '1.0.0' })
  let listChanges = 0
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => { listChanges++ })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  const greet = async (): Promise<string> => {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } })
    return (result.content as Array<{ text: string }>)[0]?.text ?? ''
  }
  /** Calls until the answer is `expected`; the time it took from now. */
  const answersWithin = async (expected: string, deadlineMs: number): Promise<number> => {
    const started = Date.now()
    let last = ''
    while (Date.now() - started < deadlineMs) {
      last = await greet().catch((error: Error) => `error: ${error.message}`)
      if (last === expected) return Date.now() - started
      await sleep(50)
    }
    throw new Error(`no "${expected}" within ${deadlineMs} ms (last: ${last})`)
  }

  t.equal(await greet(), 'Hello Ada')
  t.match(stderr, /dev: serving server\.mjs on stdio; restarts on changes under /)
  t.match(stderr, /dev: host config: \{"command":"npx","args":\["fastify-mcp-server","dev","[^"]*server\.mjs"\]\}/)

  let bound = restartBound(await coldStartMs(project.server))
  project.setGreeting('Bonjour')
  const restarted = await answersWithin('Bonjour Ada', bound)
  t.ok(restarted < bound, `the same session got the new behaviour after ${restarted} ms (bound ${bound} ms)`)
  t.ok(listChanges >= 1, 'the host was told the tools may have changed')

  // Measured again while the file still runs: the load of a shared machine moves.
  bound = restartBound(await coldStartMs(project.server))
  project.breakTool()
  for (const deadline = Date.now() + 10_000; !/exited with code 1/.test(stderr) && Date.now() < deadline;) await sleep(50)
  t.match(stderr, /SyntaxError/, 'the error, as node printed it')
  t.match(stderr, /dev: server\.mjs exited with code 1: fix it and save/)
  await t.rejects(greet(), /The server is not running: it failed to start/, 'a call meanwhile is answered with an error at once')

  project.setGreeting('Hola')
  const recovered = await answersWithin('Hola Ada', bound)
  t.ok(recovered < bound, `the next good save recovered in ${recovered} ms, in the same session (bound ${bound} ms)`)
})
