// Skills (io.modelcontextprotocol/skills, SEP-2640) as the SDK v2 client's SkillsClient sees them,
// a client nobody here wrote that verifies every file against its entry: on 2026-07-28 (pinned)
// and on 2025-11-25. Listed across pages, fetched one by one, read and verified, browsed by
// folder; the digests and sizes checked again here against the files on disk.
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t, { type Test } from 'tap'
import Fastify from 'fastify'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills'
import mcp, { MCPServer } from '../../src/index.js'
import * as z from 'zod/v4'
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js'
import { connectStreamable } from '../helpers/clients.js'

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex')
const PDF_SKILL: Record<string, string | Buffer> = {
  'SKILL.md': '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: Apache-2.0\nmetadata:\n  version: "2.1.0"\n  reviewed: "yes"\n---\n# PDF\n\nSee references/FORMS.md.\n',
  'references/FORMS.md': '# Forms\n',
  'scripts/extract.py': 'print("extract")\n',
  'assets/logo.png': PNG,
  'templates/invoice.md': '# Invoice\n',
  'templates/regional/eu-invoice.md': '# EU invoice, with VAT: 20 %\n'
}
const GIT_SKILL = { 'SKILL.md': '---\nname: git-workflow\ndescription: "Branches: short-lived; commits: small"\n---\nRebase, then merge.\n' }

/** A folder of skill folders on disk, removed after the test. */
function skillsOnDisk (t: Test, skills: Record<string, Record<string, string | Buffer>>): string {
  const parent = mkdtempSync(join(tmpdir(), 'mcp-skills-'))
  t.teardown(() => { rmSync(parent, { recursive: true, force: true }) })
  for (const [name, files] of Object.entries(skills)) {
    for (const [path, content] of Object.entries(files)) {
      mkdirSync(dirname(join(parent, name, path)), { recursive: true })
      writeFileSync(join(parent, name, path), content)
    }
  }
  return parent
}

async function skillServer (t: Test): Promise<{ url: string, parent: string }> {
  const parent = skillsOnDisk(t, { 'pdf-processing': PDF_SKILL, 'git-workflow': GIT_SKILL })
  // One entry per page: the listing walks pages, each entry whole.
  const server = new MCPServer({ pageSize: 1, skills: { directoryRead: true }, transport: { type: 'sse', options: { port: 0 } } })
  server.skills(parent)
  server.skill({ name: 'release-notes', files: { 'SKILL.md': '---\nname: release-notes\ndescription: Write release notes\n---\nOne line per change.\n' } })
  const { url } = await server.start()
  t.teardown(() => server.stop())
  return { url: `${url}/mcp`, parent }
}

async function connect (t: Test, url: string, modern: boolean): Promise<Client> {
  const client = new Client({ name: 'skills-host', version: '1.0.0' }, modern ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {})
  await client.connect(new StreamableHTTPClientTransport(new URL(url)))
  t.teardown(() => client.close())
  return client
}

/** The JSON-RPC error a call of the SDK v2 client ends with; fails when it succeeds or fails otherwise. */
async function rpcError (promise: Promise<unknown>): Promise<{ code: number, message: string }> {
  try {
    await promise
  } catch (error) {
    if (typeof (error as { code?: unknown }).code === 'number') return error as { code: number, message: string }
    throw error
  }
  throw new Error('expected a JSON-RPC error')
}

/** What the SDK v2 client needs to send a method it does not know. */
const ANY_RESULT = z.object({}).loose()

const digest = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`

async function checkSkills (t: Test, client: Client, parent: string, modern: boolean): Promise<void> {
  t.same(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills'], { directoryRead: true }, 'the extension, with directoryRead')
  t.ok(client.getServerCapabilities()?.resources, 'and the resources capability its files need')
  const skills = new SkillsClient(client)
  t.equal(skills.supported, true)
  const listing = await skills.list()
  t.same(listing.skills.map((skill) => skill.uri).sort(), ['skill://git-workflow/SKILL.md', 'skill://pdf-processing/SKILL.md', 'skill://release-notes/SKILL.md'], 'every skill, across three pages')
  if (modern) t.match(listing, { ttlMs: 0, cacheScope: 'private' }, 'caching hints on 2026-07-28')

  const pdf = listing.skills.find((skill) => skill.frontmatter.name === 'pdf-processing')
  t.same(pdf?.frontmatter, { name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', license: 'Apache-2.0', metadata: { version: '2.1.0', reviewed: 'yes' } }, 'the frontmatter, verbatim as JSON')
  const expected = Object.keys(PDF_SKILL).sort().map((path) => {
    const bytes = readFileSync(join(parent, 'pdf-processing', path))
    return { uri: `skill://pdf-processing/${path}`, digest: digest(bytes), size: bytes.length }
  })
  t.same(pdf?.resources, expected, 'every file with the SHA-256 of its bytes on disk and its size')

  if (pdf === undefined) return
  const manifest = await skills.read(pdf)
  t.equal(manifest.verified, true, 'SKILL.md verified: size, digest, frontmatter')
  t.match(manifest.body, /See references\/FORMS\.md/)
  const logo = await skills.read(pdf, 'assets/logo.png')
  t.same(Buffer.from(logo.bytes), PNG, 'a binary file byte for byte, verified')
  const eu = await skills.read(pdf, 'templates/regional/eu-invoice.md')
  t.equal(eu.text, '# EU invoice, with VAT: 20 %\n')

  const got = await skills.get('skill://git-workflow/SKILL.md')
  t.same(got.skill.frontmatter, { name: 'git-workflow', description: 'Branches: short-lived; commits: small' })
  if (modern) t.match(got, { ttlMs: 0, cacheScope: 'private' })
  t.match(await rpcError(skills.get('skill://no-such-skill/SKILL.md')), { code: -32602 }, 'an unknown skill is -32602')
  t.match(await rpcError(skills.get('skill://pdf-processing/references/FORMS.md')), { code: -32602 }, 'a file that is not a SKILL.md is no skill')

  const root = await skills.readDirectory('skill://pdf-processing')
  t.same(root.resources.map((child) => [child.name, child.mimeType]), [
    ['assets', 'inode/directory'], ['references', 'inode/directory'], ['scripts', 'inode/directory'], ['templates', 'inode/directory'], ['SKILL.md', 'text/markdown']
  ], 'the root: folders as directory resources, then files (every page walked)')
  const templates = await skills.readDirectory('skill://pdf-processing/templates')
  t.same(templates.resources, [
    { uri: 'skill://pdf-processing/templates/regional', name: 'regional', mimeType: 'inode/directory' },
    { uri: 'skill://pdf-processing/templates/invoice.md', name: 'invoice.md', mimeType: 'text/markdown', size: 10 }
  ])
  t.match(await rpcError(skills.readDirectory('skill://pdf-processing/SKILL.md')), { code: -32602 }, 'a file is not a directory: -32602')
  t.match(await rpcError(skills.readDirectory('skill://pdf-processing/templates/')), { code: -32602 }, 'directory URIs have no trailing slash')

  const { resources } = await client.listResources()
  const listed = []
  for (let page = { resources, nextCursor: undefined as string | undefined }; ;) {
    listed.push(...page.resources)
    if (page.nextCursor === undefined) break
    page = await client.listResources({ cursor: page.nextCursor }) as typeof page
  }
  t.same(listed.find((resource) => resource.uri === 'skill://pdf-processing/SKILL.md'), {
    uri: 'skill://pdf-processing/SKILL.md', name: 'pdf-processing', description: 'Extract, fill, and assemble PDF documents', mimeType: 'text/markdown', size: PDF_SKILL['SKILL.md']?.length
  }, 'each SKILL.md is listed under its frontmatter name and description')
  t.notOk(listed.some((resource) => resource.uri === 'skill://pdf-processing/references/FORMS.md'), 'the other files are readable, not listed')
}

t.test('2026-07-28: the SDK v2 client pinned lists, gets, reads and verifies skills', async (t) => {
  const { url, parent } = await skillServer(t)
  await checkSkills(t, await connect(t, url, true), parent, true)
})

t.test('2025-11-25: the same, on a session', async (t) => {
  const { url, parent } = await skillServer(t)
  await checkSkills(t, await connect(t, url, false), parent, false)
})

t.test('the plugin\'s skills option: no directoryRead, no resources/directory/read', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  await app.register(mcp, { skills: { directoryRead: false } })
  app.mcp.skill({ name: 'git-workflow', files: GIT_SKILL })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const client = await connect(t, `http://127.0.0.1:${(app.server.address() as { port: number }).port}/mcp`, true)
  t.same(client.getServerCapabilities()?.extensions?.['io.modelcontextprotocol/skills'], {}, 'declared with no optional feature')
  t.match(await rpcError(client.request({ method: 'resources/directory/read', params: { uri: 'skill://git-workflow' } }, ANY_RESULT)), { code: -32601 }, 'not served')
  const skills = new SkillsClient(client)
  t.same((await skills.list()).skills.map((skill) => skill.uri), ['skill://git-workflow/SKILL.md'])
})

t.test('a server without skills declares no extension and has no skills methods', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  server.resource({ uri: 'docs://readme', name: 'readme' }, (uri) => ({ contents: [{ uri, text: 'hi' }] }))
  const { url } = await server.start()
  t.teardown(() => server.stop())
  // The SDK client v1: v2 answers skills/list itself, empty, for a server without the extension.
  const { client } = await connectStreamable(`${url}/mcp`)
  t.teardown(() => client.close())
  t.notOk(client.getServerCapabilities()?.extensions, 'no extensions')
  for (const method of ['skills/list', 'skills/get', 'resources/directory/read']) {
    t.match(await rpcError(client.request({ method, params: { uri: 'skill://x/SKILL.md' } }, ResultSchema)), { code: -32601 }, `${method}: -32601`)
  }
})

t.test('a removed skill is gone from the listing and its files with it', async (t) => {
  const server = new MCPServer({ transport: { type: 'sse', options: { port: 0 } } })
  const registration = server.skill({ name: 'git-workflow', files: { ...GIT_SKILL, 'notes/a.md': 'a' } })
  const { url } = await server.start()
  t.teardown(() => server.stop())
  registration.remove()
  const client = await connect(t, `${url}/mcp`, true)
  t.notOk(client.getServerCapabilities()?.extensions, 'nothing left to declare')
  t.match(await rpcError(client.readResource({ uri: 'skill://git-workflow/notes/a.md' })), { code: -32602 })
  server.skill({ name: 'git-workflow', files: GIT_SKILL })
  t.pass('the name is free again')
})
