import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { listeningCatalogApp } from '../helpers/serve.js'

// The MCP Inspector's CLI as a second, independent client. It needs Node >= 22.19:
// tools/ (installed on first use by `npm run tools` or `npm run conformance`) ships one, kept out of the root
// package so that its `node` bin never shadows the machine's Node 20.
const root = fileURLToPath(new URL('../..', import.meta.url))
const node22 = join(root, 'tools/node_modules/node/bin/node')
const inspector = join(root, 'tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js')

async function run (args: string[], env: Record<string, string>): Promise<{ code: number, stdout: string, stderr: string }> {
  return await new Promise((resolve) => {
    execFile(node22, [inspector, ...args], { env: { ...process.env, ...env }, timeout: 30_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr })
    })
  })
}

const missing = [node22, inspector].filter((path) => !existsSync(path))
const skip = missing.length === 0 ? false : `not installed: ${missing.join(', ')} (run npm run tools)`

t.test('the MCP Inspector CLI lists the tools over SSE', { skip }, async (t) => {
  const { base } = await listeningCatalogApp(t)
  // Its catalog file defaults to ~/.mcp-inspector: keep the test's own.
  const home = mkdtempSync(join(tmpdir(), 'mcp-inspector-'))
  t.teardown(() => rmSync(home, { recursive: true, force: true }))
  const result = await run(['--cli', `${base}/sse`, '--transport', 'sse', '--method', 'tools/list'], {
    HOME: home,
    MCP_CATALOG_PATH: join(home, 'mcp.json'),
    MCP_AUTO_OPEN_ENABLED: 'false'
  })
  t.equal(result.code, 0, `exit 0 (stderr: ${result.stderr.slice(0, 500)})`)
  const listed = JSON.parse(result.stdout) as { tools: Array<{ name: string }> }
  t.same(listed.tools.map((tool) => tool.name).sort(), ['add', 'echo_plain', 'explode', 'forbidden', 'progress', 'wait_for_abort', 'weather', 'whoami'])
})
