import t from 'tap'
import Fastify from 'fastify'
import { MCPServer, mcp } from '../../src/index.js'
import { resolvePluginOptions, resolveServerOptions } from '../../src/schemas/resolve.js'
import { MemoryTaskStore } from '../../src/protocol/tasks/memory-store.js'

t.test('tasks options get their defaults and are validated with the others', async (t) => {
  const resolved = resolveServerOptions({})
  t.same(resolved.tasks, { ttlMs: 3_600_000, pollIntervalMs: 1000, maxTasks: 10_000, maxTasksPerPrincipal: 100, maxBytes: 268_435_456, maxBytesPerPrincipal: 16_777_216 })
  t.equal(resolveServerOptions({ tasks: { ttlMs: 5000 } }).tasks.maxTasks, 10_000, 'a partial block is completed')
  t.same(resolvePluginOptions({}).tasks, resolved.tasks)

  const error = t.throws(() => resolveServerOptions({
    tasks: { ttlMs: 0, pollIntervalMs: 2_147_483_648, maxTasks: 1.5, maxTaskPerPrincipal: 3 },
    pageSize: 0
  })) as unknown as { code: string, problems: Array<{ path: string, message: string }> }
  t.equal(error.code, 'FST_MCP_INVALID_OPTIONS')
  t.same(error.problems.map((p) => p.path), ['pageSize', 'tasks.maxTaskPerPrincipal', 'tasks.maxTasks', 'tasks.pollIntervalMs', 'tasks.ttlMs'])
  t.match(error.problems.find((p) => p.path === 'tasks.maxTaskPerPrincipal')?.message, /did you mean "maxTasksPerPrincipal"/)
  t.match(error.problems.find((p) => p.path === 'tasks.pollIntervalMs')?.message, /an integer from 1 to 2147483647, got 2147483648/)
})

t.test('taskStore: checked for the TaskStore methods, used as the very same object, never frozen', async (t) => {
  const store = new MemoryTaskStore()
  const resolved = resolveServerOptions({ taskStore: store, name: 'x' })
  t.equal(resolved.taskStore, store, 'not a copy')
  t.notOk(Object.isFrozen(store), 'the store stays usable')
  t.ok(Object.isFrozen(resolved))
  const literal = { create () {}, get () {}, update () {}, close () {} }
  t.equal(resolvePluginOptions({ taskStore: literal }).taskStore, literal, 'an object literal with methods works too (it is not cloned)')

  for (const [bad, missing] of [[{ get () {} }, 'create, update, close'], ['redis://x', 'create, get, update, close'], [null, 'create, get, update, close']] as const) {
    const error = t.throws(() => resolveServerOptions({ taskStore: bad, port: 1 })) as unknown as { problems: Array<{ path: string, message: string }> }
    t.same(error.problems.map((p) => p.path), ['port', 'taskStore'], 'reported with every other problem')
    t.equal(error.problems[1]?.message, `expected a TaskStore, an object with the methods create, get, update, close; missing: ${missing}`)
  }
  const pluginError = t.throws(() => resolvePluginOptions({ taskStore: {}, prefix: '/x' })) as unknown as { problems: Array<{ path: string }> }
  t.same(pluginError.problems.map((p) => p.path), ['taskStore'])
  store.close()
})

t.test('execution.taskSupport is validated at registration', async (t) => {
  const server = new MCPServer({ taskStore: new MemoryTaskStore() })
  t.teardown(() => server.stop())
  const handler = async () => ({ content: [] })
  for (const [execution, message] of [
    ['yes', /execution must be an object/],
    [{ taskSupport: 'always' }, /taskSupport must be 'forbidden', 'optional' or 'required'; got "always"/],
    [{ tasksupport: 'optional' }, /execution has no option "tasksupport"/]
  ] as const) {
    t.throws(() => server.tool({ name: 'bad', execution: execution as never }, handler), { code: 'FST_MCP_INVALID_DEFINITION', message })
  }
  for (const taskSupport of ['forbidden', 'optional', 'required', undefined] as const) {
    server.tool({ name: `ok-${String(taskSupport)}`, execution: { taskSupport } }, handler).remove()
  }
})

t.test('the plugin closes its built-in task store with the app', async (t) => {
  const app = Fastify()
  await app.register(mcp, { tasks: { ttlMs: 1000 } })
  app.mcp.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  await app.ready()
  await app.close()
  t.pass('closed without hanging on task timers')
})
