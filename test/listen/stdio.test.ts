// subscriptions/listen on stdio, with the server as a real child process: notifications flow on
// stdout beside other answers, demultiplexed by subscription id; notifications/cancelled frees a
// stream; shutdown and a closed stdin end the others with the result, then notifications/cancelled.
import t from 'tap'
import { modern } from '../helpers/modern.js'
import { spawnStdioFixture } from '../helpers/stdio-child.js'

const SUB = 'io.modelcontextprotocol/subscriptionId'

// Three child processes that compile on start: more than the default per-file budget on a busy machine.
t.setTimeout(480_000)

const of = (id: unknown) => (message: any): boolean => message.params?._meta?.[SUB] === id || message.result?._meta?.[SUB] === id
const answerTo = (id: unknown) => (message: any): boolean => message.id === id && message.method === undefined
const call = (id: number, name: string) => modern(id, 'tools/call', { name, arguments: {} })

t.test('streams on one stdout, told apart by subscription id; a cancel frees one', async (t) => {
  const child = spawnStdioFixture(t, 'stdio-listen-server.ts')
  child.send(modern('tools', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
  child.send(modern('notes', 'subscriptions/listen', { notifications: { resourceSubscriptions: ['notes://today', 'notes://never'] } }))
  t.same(await child.next(of('tools')), {
    jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { notifications: { toolsListChanged: true }, _meta: { [SUB]: 'tools' } }
  })
  t.same((await child.next(of('notes'))).params.notifications, { resourceSubscriptions: ['notes://today'] })

  child.send(call(1, 'touch'))
  t.same(await child.next(of('notes')), { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'notes://today', _meta: { [SUB]: 'notes' } } })
  t.equal((await child.next(answerTo(1))).result.content[0].text, '1', 'one stream reached')
  child.send(call(2, 'add_tool'))
  t.same((await child.next(of('tools'))).method, 'notifications/tools/list_changed')
  await child.next(answerTo(2))

  child.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'notes' } })
  child.send(call(3, 'touch'))
  t.equal((await child.next(answerTo(3))).result.content[0].text, '0', 'the cancelled stream is gone')
  t.notOk(child.queued.some(of('notes')), 'and nothing more came for it, not even a response')

  child.send(modern('bad', 'subscriptions/listen', { notifications: { resourceSubscriptions: 'notes://today' } }))
  t.match(await child.next(answerTo('bad')), { error: { code: -32602, message: /resourceSubscriptions must be an array/ } })

  // A server-side shutdown: the stream's result, then notifications/cancelled naming it.
  child.send(call(4, 'stop_server'))
  await child.next(answerTo(4))
  t.same(await child.next(of('tools')), { jsonrpc: '2.0', id: 'tools', result: { resultType: 'complete', _meta: { [SUB]: 'tools', 'io.modelcontextprotocol/serverInfo': { name: 'listen', version: '1.0.0' } } } })
  t.same(await child.next(of('tools')), {
    jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'tools', reason: 'the server ended the subscription', _meta: { [SUB]: 'tools' } }
  })
  t.equal(await child.exited, 0, 'the process then exits on its own')
})

t.test('closing stdin ends open streams gracefully and lets the process exit', async (t) => {
  const child = spawnStdioFixture(t, 'stdio-listen-server.ts')
  child.send(modern(1, 'subscriptions/listen', { notifications: { promptsListChanged: true } }))
  await child.next(of(1))
  child.process.stdin.end()
  t.same((await child.next(of(1))).result?.resultType, 'complete')
  t.equal((await child.next(of(1))).method, 'notifications/cancelled')
  t.equal(await child.exited, 0)
})

t.test('many listeners on one stdio channel', async (t) => {
  const child = spawnStdioFixture(t, 'stdio-listen-server.ts')
  for (let i = 0; i < 8; i++) child.send(modern(`l${i}`, 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
  for (let i = 0; i < 8; i++) await child.next(of(`l${i}`))
  child.send(modern('over', 'subscriptions/listen', { notifications: { toolsListChanged: true } }))
  t.match(await child.next(answerTo('over')), { error: { code: -32603, data: { limit: 'listen.maxStreams', max: 8 } } })
  child.send(call(1, 'add_tool'))
  const ids = new Set<string>()
  for (let i = 0; i < 8; i++) ids.add((await child.next((m) => m.method === 'notifications/tools/list_changed')).params._meta[SUB])
  t.equal(ids.size, 8, 'each stream once')
  child.process.stdin.end()
  t.equal(await child.exited, 0)
})
