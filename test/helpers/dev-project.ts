// A throwaway project for `dev`: a server file whose tool lives in a file of its own, in a
// subfolder, the way a user splits them, so that a test can edit the tool and watch the server
// pick it up. Plain JavaScript on the build: it is started again at every save.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'

const PACKAGE = new URL('../../dist/index.js', import.meta.url).href

export interface DevProject {
  dir: string
  server: string
  /** Saves the tool's file: `greet` then answers `${word} ${name}`. */
  setGreeting: (word: string) => void
  /** Saves the tool's file with a syntax error in it. */
  breakTool: () => void
}

export function devProject (t: Test, greeting: string): DevProject {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-dev-')))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const server = join(dir, 'server.mjs')
  const tool = join(dir, 'tools', 'greet.mjs')
  mkdirSync(join(dir, 'tools'))
  writeFileSync(server, [
    `import { MCPServer, Type } from '${PACKAGE}'`,
    "import { greet } from './tools/greet.mjs'",
    '// No transport: stdio, or HTTP when dev --http says so.',
    "const server = new MCPServer({ name: 'dev-fixture', version: '1.0.0', logLevel: 'silent' })",
    "server.tool({ name: 'greet', inputSchema: Type.Object({ name: Type.String() }) }, async ({ name }) => ({ content: [{ type: 'text', text: greet(name) }] }))",
    'await server.start()',
    ''
  ].join('\n'))
  const setGreeting = (word: string): void => { writeFileSync(tool, `export const greet = (name) => \`${word} \${name}\`\n`) }
  setGreeting(greeting)
  return { dir, server, setGreeting, breakTool: () => { writeFileSync(tool, 'export const greet = (name) => {\n') } }
}

/**
 * How long the server file takes to start from nothing on this machine right now (node, the
 * package, the file), until it answers an `initialize` on stdio: what no restart can beat. The
 * dev tests hold each restart to 5 s, or, measured just before it, to twice this plus a second
 * when the machine is so loaded that a cold start alone takes seconds (a 2-core machine shared
 * with other test runs has shown 3 s cold starts).
 */
export async function coldStartMs (server: string): Promise<number> {
  const started = Date.now()
  const child = spawn(process.execPath, [server], { stdio: ['pipe', 'pipe', 'ignore'] })
  child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'probe', version: '1' } } }) + '\n')
  const answered = await Promise.race([once(child.stdout, 'data').then(() => true), once(child, 'close').then(() => false)])
  if (!answered) throw new Error(`${server} ended before answering`)
  const elapsed = Date.now() - started
  child.kill()
  await once(child, 'close')
  return elapsed
}

/** The bound a restart is held to: 5 s, unless a cold start alone shows the machine cannot do it. */
export function restartBound (coldMs: number): number {
  return Math.max(5000, coldMs * 2 + 1000)
}
