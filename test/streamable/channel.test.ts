import { EventEmitter } from 'node:events'
import type { ServerResponse } from 'node:http'
import t from 'tap'
import { Session } from '../../src/protocol/session.js'
import { MemoryEventStore } from '../../src/scale/memory/event-store.js'
import type { EventReplay, EventStore, StoredEvent } from '../../src/scale/ports.js'
import { StreamSet } from '../../src/transports/http/sse-stream.js'
import { StreamableChannel } from '../../src/transports/streamable/channel.js'

/** Just enough of a ServerResponse for an SseStream, recording what is written. */
class FakeResponse extends EventEmitter {
  written = ''
  destroyed = false
  writableEnded = false
  writableLength = 0
  writeHead (): this { return this }
  flushHeaders (): void {}
  write (chunk: string): boolean {
    this.written += chunk
    return true
  }

  end (): void {
    this.writableEnded = true
    this.emit('close')
  }

  destroy (): void {
    this.destroyed = true
    this.emit('close')
  }

  /** The data of every message event written, in order. */
  get messages (): string[] {
    return [...this.written.matchAll(/^data: (.+)$/gm)].map((match) => match[1] as string)
  }
}

const res = (): FakeResponse & ServerResponse => new FakeResponse() as FakeResponse & ServerResponse

function setup (store: EventStore | undefined) {
  const errors: unknown[] = []
  const streams = new StreamSet(60_000)
  t.teardown(() => streams.closeAll())
  const channel = new StreamableChannel({ store, streams, maxQueuedBytes: 1 << 20, onStoreError: (error) => { errors.push(error) } })
  const session = new Session('s1', channel)
  channel.bind(session)
  session.state = 'ready'
  session.protocolVersion = '2025-11-25'
  const log = (data: string, related?: number): void => { session.notify('notifications/message', { level: 'info', data }, related) }
  return { channel, session, errors, log }
}

t.test('events written while an asynchronous store replays are held, then sent once, after the replay', async (t) => {
  const memory = new MemoryEventStore(100)
  let release!: () => void
  const slow: EventStore = {
    append: async (sessionId, streamId, event) => { memory.append(sessionId, streamId, event) },
    replayAfter: async (sessionId, lastEventId): Promise<EventReplay | undefined> => {
      await new Promise<void>((resolve) => { release = resolve })
      return memory.replayAfter(sessionId, lastEventId)
    },
    deleteSession: (sessionId) => { memory.deleteSession(sessionId) }
  }
  const { channel, session, log } = setup(slow)
  const post = res()
  channel.openRequestStream(1, post, {})
  log('one', 1)
  const primingId = /^id: (\S+)$/m.exec(post.written)?.[1] as string
  post.destroy()

  const planned = channel.planResume(primingId)
  log('two', 1) // recorded and held while the store is busy
  release()
  const plan = await planned
  t.ok(plan, 'the id is known')
  log('three', 1) // after the lookup, before the connection is attached: held as well
  const get = res()
  channel.resume(plan!, get, {})
  session.send({ jsonrpc: '2.0', id: 1, result: {} }, 1)
  t.same(get.messages.map((data) => JSON.parse(data).params?.data ?? 'result'), ['one', 'two', 'three', 'result'], 'each once, in order')
  t.equal(get.writableEnded, true, 'the answered stream ends')
})

t.test('a store that fails is reported, and live delivery goes on', async (t) => {
  const failing: EventStore = {
    append: (_s: string, _id: string, event: StoredEvent) => {
      if (event.data === '') throw new Error('sync failure')
      return Promise.reject(new Error('async failure'))
    },
    replayAfter: async () => { throw new Error('replay failure') },
    deleteSession: async () => { throw new Error('delete failure') }
  }
  const { channel, session, errors, log } = setup(failing)
  const post = res()
  channel.openRequestStream(1, post, {})
  log('still delivered', 1)
  t.match(post.messages, [/still delivered/])
  t.equal(await channel.planResume('1_1'), undefined, 'a failed replay is no replay')
  session.close()
  await new Promise((resolve) => setImmediate(resolve))
  t.match(errors.map((error) => (error as Error).message).sort(), ['async failure', 'delete failure', 'replay failure', 'sync failure'])
})

t.test('routing: related messages follow their request, the rest the standalone stream', async (t) => {
  const { channel, session, log } = setup(new MemoryEventStore(100))
  log('before anyone listens')
  const get = res()
  channel.openStandalone(get, {})
  t.equal(channel.hasStandalone, true)
  channel.collectResponse(7)
  log('about request 7', 7)
  session.send({ jsonrpc: '2.0', id: 7, result: { ok: true } }, 7)
  t.equal(channel.takeResponse(7), '{"jsonrpc":"2.0","id":7,"result":{"ok":true}}', 'a JSON answer collects only the response')
  log('about nothing in flight', 99)
  t.same(get.messages.map((data) => JSON.parse(data).params.data), ['about request 7', 'about nothing in flight'],
    'the rest goes to the GET stream; nothing from before it opened')
  t.equal(channel.closeStream(7), false, 'nothing to close for a finished request')
  const again = res()
  channel.openStandalone(again, {})
  t.equal(get.writableEnded, true, 'a new standalone connection replaces the old one')
})

/** A Fastify reply as the channel sees it: records hijacks. */
function fakeReply (raw = res()): { raw: FakeResponse & ServerResponse, hijacked: number, hijack: () => void, getHeaders: () => Record<string, string> } {
  return {
    raw,
    hijacked: 0,
    hijack () { this.hijacked++ },
    getHeaders: () => ({ 'x-from-hooks': 'yes' })
  }
}

t.test('an answer pending as JSON stays JSON when the response comes first', async (t) => {
  const { channel, session, log } = setup(new MemoryEventStore(100))
  const get = res()
  channel.openStandalone(get, {})
  const reply = fakeReply()
  channel.collectResponse(3, reply)
  t.equal(channel.isCollecting(3), true)
  session.send({ jsonrpc: '2.0', id: 3, result: {} }, 3)
  log('after the response, before the route took it', 3)
  t.equal(reply.hijacked, 0, 'never upgraded')
  t.equal(reply.raw.written, '', 'nothing written on the reply')
  t.equal(channel.takeResponse(3), '{"jsonrpc":"2.0","id":3,"result":{}}')
  t.same(get.messages.slice(-1).map((data) => JSON.parse(data).params.data), ['after the response, before the route took it'],
    'a straggler cannot go before the response: it takes the standalone stream, as for a JSON answer')
})

t.test('anything else first upgrades a pending answer: hijack, priming, that message, the rest', async (t) => {
  const { channel, session, log } = setup(new MemoryEventStore(100))
  const get = res()
  channel.openStandalone(get, {})
  const reply = fakeReply()
  channel.collectResponse(4, reply)
  log('first', 4)
  t.equal(reply.hijacked, 1, 'hijacked once')
  t.equal(channel.isCollecting(4), false, 'no longer a JSON answer')
  t.match(reply.raw.written, /^id: 1_\d+\nretry: 1000\ndata: \n\n/, 'primed first')
  log('second', 4)
  session.send({ jsonrpc: '2.0', id: 4, result: { ok: true } }, 4)
  t.equal(reply.hijacked, 1, 'still once')
  t.same(reply.raw.messages.map((data) => JSON.parse(data).params?.data ?? 'result'), ['first', 'second', 'result'], 'each once, in order')
  t.equal(reply.raw.writableEnded, true, 'the response ends the stream')
  t.equal(get.messages.length, 0, 'nothing went to the standalone stream')
  channel.handlerDone(4)
  t.equal(channel.has(4), false, 'forgotten')
})

t.test('a pending answer whose connection is gone stays JSON: no upgrade, messages to the standalone stream', async (t) => {
  const { channel, session, log } = setup(new MemoryEventStore(100))
  const get = res()
  channel.openStandalone(get, {})
  const raw = res()
  raw.destroyed = true
  const reply = fakeReply(raw)
  channel.collectResponse(5, reply)
  log('nobody on the POST', 5)
  t.equal(reply.hijacked, 0)
  t.equal(channel.isCollecting(5), true, 'still JSON: the route cancels it on close')
  t.same(get.messages.map((data) => JSON.parse(data).params.data), ['nobody on the POST'])
  t.equal(channel.closeStream(5), false, 'nothing to close')
  session.send({ jsonrpc: '2.0', id: 5, result: {} }, 5)
  t.equal(channel.takeResponse(5), '{"jsonrpc":"2.0","id":5,"result":{}}')
})

t.test('closeStream on a pending answer upgrades first, then closes; not for clients that cannot resume', async (t) => {
  const { channel, session } = setup(new MemoryEventStore(100))
  const reply = fakeReply()
  channel.collectResponse(6, reply)
  t.equal(channel.closeStream(6, 20), true)
  t.equal(reply.hijacked, 1)
  t.match(reply.raw.written, /^id: (\S+)\nretry: 1000\ndata: \n\nid: (\S+)\nretry: 20\ndata: \n\n$/, 'primed, then the retry asked for')
  t.equal(reply.raw.writableEnded, true, 'closed')
  t.equal(channel.closeStream(6), false, 'already closed')

  session.protocolVersion = '2025-06-18'
  const older = fakeReply()
  channel.collectResponse(7, older)
  t.equal(channel.closeStream(7), false, 'an older client cannot resume')
  t.equal(older.hijacked, 0, 'and its answer stays JSON')
  session.protocolVersion = '2025-11-25'
  channel.collectResponse(8)
  t.equal(channel.closeStream(8), false, 'a client taking only JSON has no stream to close')
})

t.test('without a store an upgraded stream has no ids and a drop cancels the handler', async (t) => {
  const { channel, session, log } = setup(undefined)
  const reply = fakeReply()
  channel.collectResponse(9, reply)
  const inflight = session.beginRequest(9)
  log('one', 9)
  t.equal(reply.raw.written, 'event: message\ndata: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"one"}}\n\n', 'no priming, no id')
  reply.raw.destroy()
  t.equal(inflight.aborted, true, 'nobody could read the answer')
})
