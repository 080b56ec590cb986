// createTestClient under node:test: a test file of its own, in a process of its own, passes and
// exits by itself (nothing the client opened keeps it alive).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import t from 'tap'
import { fixture } from '../helpers/clients.js'

t.test('a node:test file passes and its process exits by itself', async (t) => {
  const child = spawn(process.execPath, [...process.execArgv, '--test-reporter=tap', fixture('node-test-client.ts')], { stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  let killed = false
  const timer = setTimeout(() => { killed = true; child.kill('SIGKILL') }, 60_000)
  const [code] = await once(child, 'close') as [number | null]
  clearTimeout(timer)
  t.notOk(killed, 'it ended within 60 s, on its own')
  t.equal(code, 0, stderr)
  t.match(stdout, /^# pass 4$/m)
  t.match(stdout, /^# fail 0$/m)
  t.match(stdout, /ok \d+ - a Fastify app, 2025-11-25/)
})
