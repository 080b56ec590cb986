// A throwaway project for `dev`: a server file whose tool lives in a file of its own, in a
// subfolder, the way a user splits them, so that a test can edit the tool and watch the server
// pick it up. Plain JavaScript on the build: it is started again at every save.
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
