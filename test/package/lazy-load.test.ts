import t from 'tap'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { ensureBuilt } from '../helpers/built.js'

// What a server loads is part of its start-up time: Fastify, the YAML parser and fast-jwt are a
// third of the package's import, and a stdio server, a server without skills, a server without JWT
// auth never needs them. They load when first needed; this is the published build, in a process
// of its own, as users run it.
ensureBuilt()
const dist = fileURLToPath(new URL('../../dist/index.js', import.meta.url))
const stages = fileURLToPath(new URL('../fixtures/lazy-load-stages.mjs', import.meta.url))

t.test('Fastify, the YAML parser and fast-jwt load when first needed, not with the package', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, [stages, dist], { timeout: 30_000 })
  const loaded = new Map(stdout.trim().split('\n').map((line) => JSON.parse(line) as [string, string[]]))
  t.same([...loaded.keys()], ['registered', 'skill registered', 'http started', 'token verified: 200'])
  const has = (stage: string, name: string): boolean => loaded.get(stage)?.includes(name) === true
  t.notOk(has('registered', 'fastify'), 'a server with tools, before start: no Fastify')
  t.notOk(has('registered', 'yaml'), 'no YAML parser before a skill')
  t.notOk(has('registered', 'fast-jwt'), 'no fast-jwt before a token')
  t.ok(has('registered', 'ajv'), 'the schema engine, which registration uses: so the list is read')
  t.ok(has('skill registered', 'yaml'), 'a skill loads the YAML parser')
  t.ok(has('http started', 'fastify'), 'an HTTP start loads Fastify')
  t.notOk(has('http started', 'fast-jwt'), 'JWT auth configured, no token yet: no fast-jwt')
  t.ok(has('token verified: 200', 'fast-jwt'), 'the first token loads fast-jwt, and is verified')
})
