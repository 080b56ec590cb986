import t from 'tap'
import { TaskLimitError } from '../../src/errors.js'
import { MemoryTaskStore } from '../../src/protocol/tasks/memory-store.js'
import { ownerKey } from '../../src/protocol/tasks/owner.js'
import type { StoredTask } from '../../src/protocol/tasks/types.js'
import { until } from '../helpers/wait.js'

const limits = { maxTasks: 3, maxTasksPerOwner: 2 }

function task (taskId: string, owner: string, createdAt = 1000, ttlMs = 500): StoredTask {
  return { taskId, owner, status: 'working', createdAt, lastUpdatedAt: createdAt, ttlMs, pollIntervalMs: 100 }
}

t.test('a task is found by its owner only, and only until its TTL', async (t) => {
  let now = 1000
  const store = new MemoryTaskStore({ now: () => now })
  t.teardown(() => store.close())
  store.create(task('a', 'alice'), limits)
  t.equal(store.get('a', 'alice')?.taskId, 'a')
  t.equal(store.get('a', 'bob'), undefined, 'another owner sees nothing')
  t.equal(store.get('nope', 'alice'), undefined)
  now = 1499
  t.ok(store.get('a', 'alice'), 'still there 1 ms before the TTL ends')
  now = 1500
  t.equal(store.get('a', 'alice'), undefined, 'gone once createdAt + ttlMs is reached')
  t.equal(store.update('a', { status: 'completed' }, now), undefined, 'an expired task cannot be updated')
  t.equal(store.size, 0, 'and its memory is released')
})

t.test('the bounds refuse with FST_MCP_TASK_LIMIT, overall and per owner, and free up on expiry', async (t) => {
  let now = 1000
  const store = new MemoryTaskStore({ now: () => now })
  t.teardown(() => store.close())
  store.create(task('a1', 'alice'), limits)
  store.create(task('a2', 'alice'), limits)
  t.throws(() => store.create(task('a3', 'alice'), limits), { code: 'FST_MCP_TASK_LIMIT', message: /this client has 2 tasks/ })
  store.create(task('b1', 'bob'), limits)
  const full = t.throws(() => store.create(task('c1', 'carol'), limits))
  t.ok(full instanceof TaskLimitError)
  t.match(full, { message: /the server holds 3 tasks/ })
  now = 1500
  t.equal(store.get('a1', 'alice'), undefined)
  store.create(task('a4', 'alice', 1500), limits)
  t.ok(store.get('a4', 'alice'), 'room again after an expiry')
})

t.test('updates apply to live tasks only; the first terminal status wins', async (t) => {
  const store = new MemoryTaskStore({ now: () => 1000 })
  t.teardown(() => store.close())
  store.create(task('a', 'alice'), limits)
  const waiting = store.update('a', { status: 'input_required', inputRequests: { k: { method: 'elicitation/create' } } }, 1100)
  t.equal(waiting?.status, 'input_required')
  t.equal(waiting?.lastUpdatedAt, 1100)
  const resumed = store.update('a', { status: 'working', inputRequests: undefined }, 1200)
  t.notOk(resumed !== undefined && 'inputRequests' in resumed, 'inputRequests: undefined clears them')
  store.update('a', { status: 'cancelled' }, 1300)
  const late = store.update('a', { status: 'completed', result: { content: [] } }, 1400)
  t.equal(late?.status, 'cancelled', 'a finished task never changes')
  t.equal(late?.lastUpdatedAt, 1300)
  t.equal(late?.result, undefined)
})

t.test('callers get copies: changing one does not change the store', async (t) => {
  const store = new MemoryTaskStore()
  t.teardown(() => store.close())
  const now = Date.now()
  store.create(task('a', 'alice', now, 60_000), limits)
  const copy = store.get('a', 'alice') as StoredTask
  copy.status = 'completed'
  t.equal(store.get('a', 'alice')?.status, 'working')
})

t.test('the expiry timer drops a task without anyone reading it; close clears everything', async (t) => {
  const store = new MemoryTaskStore()
  store.create(task('soon', 'alice', Date.now(), 5), limits)
  store.create(task('later', 'alice', Date.now(), 60_000), limits)
  await until(() => store.size <= 1, { everyMs: 5, what: 'the short-lived task to expire' })
  t.equal(store.size, 1, 'the short-lived task went by itself')
  store.close()
  t.equal(store.size, 0)
  t.equal(store.get('later', 'alice'), undefined)
})

t.test('owner keys: one per identity, never the anonymous one', async (t) => {
  const user = { method: 'jwt' as const, kind: 'user' as const, issuer: 'https://idp', subject: 'anonymous', scopes: [], claims: {} }
  t.equal(ownerKey(undefined), 'anonymous')
  t.not(ownerKey(user), ownerKey(undefined), 'a subject named "anonymous" is not the anonymous owner')
  t.equal(ownerKey({ ...user, scopes: ['admin'] }), ownerKey(user), 'the same identity with another token owns the same tasks')
  t.not(ownerKey({ ...user, kind: 'client' }), ownerKey(user))
})

t.test('the extension is advertised once a tool may run as a task', async (t) => {
  const { Registry } = await import('../../src/protocol/registry.js')
  const { taskExtensionCapabilities } = await import('../../src/protocol/tasks/capability.js')
  const registry = new Registry()
  registry.tool({ name: 'plain' }, async () => ({ content: [] }))
  t.same(taskExtensionCapabilities(registry), {})
  const task = registry.tool({ name: 'job', execution: { taskSupport: 'optional' } }, async () => ({ content: [] }))
  t.same(taskExtensionCapabilities(registry), { 'io.modelcontextprotocol/tasks': {} })
  task.remove()
  t.same(taskExtensionCapabilities(registry), {})
})
