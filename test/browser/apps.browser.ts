// MCP Apps in a real browser: headless Chromium (Debian's `chromium`, driven by playwright-core)
// loads a small host page that uses ext-apps' AppBridge over an MCP client on Streamable HTTP to our
// server, renders the demo's text_stats app in a sandboxed iframe, sees the tool result the host
// hands it, clicks the app's button (a tools/call through the host to the server) and sees the new
// result rendered; on 2025-11-25 and on 2026-07-28. A screenshot of each run is saved under
// test-artifacts/browser/ (git-ignored). Run by `npm run test:browser`, not by `npm test`.
// Locally it skips when Chromium is missing; under CI=true that is a failure.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { extname, join, relative, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import t, { type Test } from 'tap'
import Fastify, { type FastifyInstance } from 'fastify'
import { chromium } from 'playwright-core'
import mcp, { type MCPRegistryApi } from '../../src/index.js'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
// This machine has no internet: without the background-networking flags Chromium keeps trying.
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']
const root = fileURLToPath(new URL('../..', import.meta.url))
const NODE_MODULES = join(root, 'node_modules')
const ARTIFACTS = join(root, 'test-artifacts', 'browser')
const STEP_MS = 20_000

// The bare specifiers the host page's module graph imports; each resolved to its browser build.
const SPECIFIERS = [
  '@modelcontextprotocol/client', '@modelcontextprotocol/client/_shims', '@modelcontextprotocol/core', '@modelcontextprotocol/core/internal',
  '@modelcontextprotocol/ext-apps/app-bridge', 'zod/v4', 'eventsource', 'eventsource-parser', 'eventsource-parser/stream', 'pkce-challenge'
]

/** A package's entry for `specifier` under the conditions a browser bundler uses, relative to node_modules. */
function browserEntry (specifier: string): string {
  const segments = specifier.split('/')
  const name = specifier.startsWith('@') ? segments.slice(0, 2).join('/') : segments[0] ?? specifier
  const manifest = JSON.parse(readFileSync(join(NODE_MODULES, name, 'package.json'), 'utf8'))
  let target: unknown = manifest.exports?.[`.${specifier.slice(name.length)}`]
  while (typeof target === 'object' && target !== null) {
    const conditions = target as Record<string, unknown>
    target = conditions.browser ?? conditions.import ?? conditions.default
  }
  if (typeof target !== 'string') throw new Error(`no browser entry for ${specifier}`)
  return `${name}/${target.replace(/^\.\//, '')}`
}

const TYPES: Record<string, string> = { '.js': 'text/javascript', '.mjs': 'text/javascript', '.html': 'text/html' }

/** Our server as the plugin in an app that also serves the host page and the packages it imports. */
async function hostApp (t: Test): Promise<{ app: FastifyInstance, base: string, calls: string[] }> {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, {})
  // The demo's own text_stats and app page (examples/ run from dist/: `npm run test:browser` builds first).
  const { registerTextStats } = await import(pathToFileURL(join(root, 'examples', 'apps', 'text-stats.js')).href) as { registerTextStats: (registry: MCPRegistryApi) => void }
  registerTextStats(app.mcp)
  const calls: string[] = []
  app.addHook('preHandler', async (request) => {
    const body = request.body as { method?: unknown } | undefined
    if (request.url === '/mcp' && body?.method === 'tools/call') calls.push('tools/call')
  })
  const imports = Object.fromEntries(SPECIFIERS.map((specifier) => [specifier, `/modules/${browserEntry(specifier)}`]))
  const page = readFileSync(new URL('./host.html', import.meta.url), 'utf8').replace('%IMPORT_MAP%', JSON.stringify({ imports }))
  app.get('/host.html', async (_request, reply) => await reply.type('text/html').send(page))
  app.get('/favicon.ico', async (_request, reply) => await reply.code(204).send())
  app.get('/modules/*', async (request, reply) => {
    const file = resolve(NODE_MODULES, (request.params as { '*': string })['*'])
    const inside = relative(NODE_MODULES, file)
    if (inside.startsWith('..') || !existsSync(file)) return await reply.code(404).send()
    return await reply.type(TYPES[extname(file)] ?? 'application/octet-stream').send(readFileSync(file))
  })
  // Loopback only: the page and the app are served to this machine's browser, nobody else.
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  return { app, base, calls }
}

const chromiumPresent = existsSync(CHROMIUM)
if (!chromiumPresent && process.env.CI === 'true') {
  t.fail(`Chromium is missing at ${CHROMIUM}: CI installs the Debian package chromium (.ci/run)`)
}

for (const generation of ['legacy', 'modern'] as const) {
  t.test(`the text_stats app in Chromium, ${generation === 'modern' ? '2026-07-28' : '2025-11-25'}`, { skip: chromiumPresent ? false : `no Chromium at ${CHROMIUM}` }, async (t) => {
    const { app, base, calls } = await hostApp(t)
    const profile = mkdtempSync(join(tmpdir(), 'mcp-chromium-'))
    t.teardown(() => { rmSync(profile, { recursive: true, force: true }) })
    const browser = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: CHROMIUM_FLAGS })
    t.teardown(() => browser.close())
    const page = await browser.newPage()
    const errors: string[] = []
    page.on('pageerror', (error) => { errors.push(error.message) })
    page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()) })

    await page.goto(`${base}/host.html?generation=${generation}`)
    await page.locator('#host-status', { hasText: 'app initialized' }).waitFor({ timeout: STEP_MS }).catch(async (error: Error) => {
      throw new Error(`${error.message}\nhost status: ${await page.locator('#host-status').textContent()}\npage errors: ${errors.join('\n')}`)
    })
    t.equal(await page.evaluate('window.negotiatedVersion'), generation === 'modern' ? '2026-07-28' : '2025-11-25', 'the host\'s client speaks the generation under test')
    t.equal(app.mcp.sessionCount, generation === 'modern' ? 0 : 1, generation === 'modern' ? 'stateless: no session' : 'one session')

    const view = page.frameLocator('iframe[title="text_stats app"]')
    // The result the host called for before rendering: 'The host called text_stats\nbefore rendering'.
    await view.locator('#characters', { hasText: '43' }).waitFor({ timeout: STEP_MS })
    t.same(await Promise.all(['#characters', '#words', '#lines'].map(async (id) => await view.locator(id).textContent())), ['43', '6', '2'], 'the app shows the tool result the host handed it')

    await view.locator('#text').fill('counted in the browser')
    await view.locator('#count').click()
    await view.locator('#status', { hasText: 'Counted by the server' }).waitFor({ timeout: STEP_MS })
    t.same(await Promise.all(['#characters', '#words', '#lines'].map(async (id) => await view.locator(id).textContent())), ['22', '4', '1'], 'the button\'s tools/call went through the host and its result is rendered')
    t.same(calls, ['tools/call', 'tools/call'], 'the server answered the host\'s call and the app\'s')
    t.same(errors, [], 'no error in the page or the app')

    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: join(ARTIFACTS, `text-stats-${generation}.png`), fullPage: true })
  })
}
