// The Tasks extension over stdio, the server a real child process: a task-augmented call polled to
// completion, one cancelled (its handler's signal aborts), and a call without the extension.
import t from 'tap'
import { modern } from '../helpers/modern.js'
import { spawnStdioFixture } from '../helpers/stdio-child.js'
import { poll as pollUntil, until } from '../helpers/wait.js'

// A child process that compiles on start: more than the default per-file budget on a busy machine.
t.setTimeout(240_000)

const TASKS = { 'io.modelcontextprotocol/clientCapabilities': { extensions: { 'io.modelcontextprotocol/tasks': {} } } }

t.test('tasks over stdio: polled to completion, cancelled, refused without the extension', async (t) => {
  const child = spawnStdioFixture(t, 'stdio-tasks-server.ts')
  let nextId = 1
  const rpc = async (method: string, params: Record<string, unknown>, extra: Record<string, unknown> = TASKS): Promise<any> =>
    await child.call(modern(nextId++, method, params, extra))
  const poll = async (taskId: string, done: (task: any) => boolean): Promise<any> =>
    await pollUntil(async () => (await rpc('tasks/get', { taskId })).result, done, { everyMs: 20, what: `task ${taskId}` })
  const terminal = (task: any): boolean => ['completed', 'failed', 'cancelled'].includes(task.status)

  const created = await rpc('tools/call', { name: 'slow_sum', arguments: { a: 2, b: 3 } })
  t.equal(created.result.resultType, 'task', 'a task-augmented call answers with a task')
  const finished = await poll(created.result.taskId, terminal)
  t.equal(finished.status, 'completed')
  t.match(JSON.stringify(finished), /"text":"5"/, 'the completed task carries the tool result')

  const plain = await rpc('tools/call', { name: 'slow_sum', arguments: { a: 1, b: 1 } }, {})
  t.equal(plain.result.content[0].text, '2', 'without the extension an optional-task tool answers inline')
  const refused = await rpc('tools/call', { name: 'forever', arguments: {} }, {})
  t.ok(refused.error, 'without the extension a task-required tool is refused')

  const running = await rpc('tools/call', { name: 'forever', arguments: {} })
  t.equal(running.result.resultType, 'task')
  await rpc('tasks/cancel', { taskId: running.result.taskId })
  t.equal((await poll(running.result.taskId, terminal)).status, 'cancelled')
  await until(() => child.stderr().includes('forever: aborted'), { what: 'the handler to see ctx.signal abort' })
  t.pass('the cancelled task\'s handler saw ctx.signal abort')

  const after = await rpc('tools/call', { name: 'slow_sum', arguments: { a: 3, b: 4 } }, {})
  t.equal(after.result.content[0].text, '7', 'the server keeps serving')
  child.process.stdin.end()
  t.equal(await child.exited, 0, 'the child exits cleanly when stdin ends')
})
