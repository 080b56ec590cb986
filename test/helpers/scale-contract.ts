// Contract tests of the scale-out ports, run against every implementation: a factory builds the
// implementation under test (Redis here; the in-process ones can use the same functions). They say
// what the transports rely on, nothing about how an implementation keeps it.
import type { Test } from 'tap'
import type { StoredTask, TaskStore } from '../../src/protocol/tasks/types.js'
import { EventBytes } from '../../src/scale/event-bytes.js'
import type { Bus, Envelope, EventStore, SessionEventStore, SessionRecord, SessionStore, StoredEvent } from '../../src/scale/ports.js'
import { sleep, until } from './wait.js'

export function record (id: string, extra: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    kind: 'streamable',
    principal: { method: 'jwt', kind: 'user', issuer: 'https://idp.example', subject: 'alice' },
    protocolVersion: '2025-11-25',
    clientInfo: { name: 'c', version: '1' },
    clientCapabilities: { elicitation: {}, roots: { listChanged: true } },
    subscriptions: [],
    ...extra
  }
}

/** Two instances' views of one shared session store. */
export type SessionStores = () => Promise<[SessionStore, SessionStore]>

export function sessionStoreContract (t: Test, make: SessionStores): void {
  t.test('a record written by one instance is read whole by another', async (t) => {
    const [a, b] = await make()
    const original = record('s1', { logLevel: 'info', subscriptions: ['file:///a', 'file:///b'] })
    await a.create(original, 60_000)
    t.same(await b.get('s1'), { record: original }, 'no gateway before any claim')
    const { principal: _p, clientInfo: _c, ...bare } = record('s2')
    await a.create(bare, 60_000)
    const read = await b.get('s2')
    t.same(read?.record, bare)
    t.notOk(read !== undefined && 'principal' in read.record, 'no principal key when auth is off')
    t.equal(await b.get('nope'), undefined)
  })

  t.test('update patches fields (an empty list stays a list; undefined clears), false once gone', async (t) => {
    const [a, b] = await make()
    await a.create(record('u1', { logLevel: 'debug', subscriptions: ['x'] }), 60_000)
    t.equal(await b.update('u1', { subscriptions: [], logLevel: 'error' }), true)
    t.same((await a.get('u1'))?.record, record('u1', { logLevel: 'error', subscriptions: [] }))
    t.equal(await b.update('u1', { logLevel: undefined }), true)
    t.equal((await a.get('u1'))?.record.logLevel, undefined, 'logLevel cleared')
    t.equal(await a.update('gone', { logLevel: 'info' }), false)
    t.equal(await a.get('gone'), undefined, 'an update never creates a record')
  })

  t.test('claimGateway returns the previous holder and the stream-0 tail', async (t) => {
    const [a, b] = await make()
    await a.create(record('g1'), 60_000)
    t.same(await a.claimGateway('g1', 'A'), { previous: undefined, tail: '0' })
    t.same(await b.claimGateway('g1', 'B'), { previous: 'A', tail: '0' })
    t.equal((await a.get('g1'))?.gateway, 'B')
    t.equal(await a.claimGateway('none', 'A'), undefined, 'no claim on a session that does not exist')
    t.equal(await a.get('none'), undefined, 'and the claim did not create one')
  })

  t.test('touch is true while the session lives; delete ends it for everyone', async (t) => {
    const [a, b] = await make()
    await a.create(record('d1'), 60_000)
    await a.claimGateway('d1', 'A')
    t.equal(await b.touch('d1', 60_000), true)
    await b.delete('d1')
    t.equal(await a.get('d1'), undefined)
    t.equal(await a.touch('d1', 60_000), false)
    t.equal(await a.claimGateway('d1', 'A'), undefined)
    await a.delete('d1')
    t.pass('deleting twice is harmless')
  })

  t.test('restore (after Redis lost its data) creates what is missing and never replaces anything', async (t) => {
    const [a, b] = await make()
    const held = record('r1', { logLevel: 'info' })
    await a.restore(held, 60_000, undefined)
    t.same(await b.get('r1'), { record: held }, 'a copy without the stream puts the record back, no gateway')
    await b.restore(record('r1', { logLevel: 'debug' }), 60_000, 'B')
    t.same(await a.get('r1'), { record: held, gateway: 'B' }, 'the stream holder adds its claim, the record stays the first one')
    await a.restore(held, 60_000, 'A')
    t.equal((await b.get('r1'))?.gateway, 'B', 'a claim already there is newer: kept')
    await a.restore(record('r2'), 150, 'A')
    t.equal(await a.touch('r2', 150), true, 'a restored record lives')
    await sleep(400)
    t.equal(await b.get('r2'), undefined, 'and expires like any other')
  })

  t.test('idle expiry is the TTL; touch extends it', async (t) => {
    const [a, b] = await make()
    await a.create(record('e1'), 150)
    await a.create(record('e2'), 150)
    t.equal(await b.touch('e2', 60_000), true)
    await sleep(400)
    t.equal(await b.get('e1'), undefined, 'expired')
    t.equal(await b.touch('e1', 60_000), false, 'an expired session cannot be touched back')
    t.ok(await b.get('e2'), 'the touched one lives')
  })
}

/** Stores of two instances sharing the events, with the bounds given. */
export type EventStores = (bounds: { maxEvents: number, maxBytes: number }) => Promise<[EventStore, EventStore]>

export function eventStoreContract (t: Test, make: EventStores): void {
  t.test('events appended on one instance replay on another, per stream, priming skipped', async (t) => {
    const [a, b] = await make({ maxEvents: 100, maxBytes: 1 << 20 })
    await a.append('s', 'A.1', { id: 'A.1_0', data: '' })
    await a.append('s', 'A.1', { id: 'A.1_1', data: '{"n":1}' })
    await a.append('s', 'A.2', { id: 'A.2_2', data: '{"other":1}' })
    await a.append('s', 'A.1', { id: 'A.1_3', data: '{"n":2}' })
    t.same(await b.replayAfter('s', 'A.1_0'), { streamId: 'A.1', events: [{ id: 'A.1_1', data: '{"n":1}' }, { id: 'A.1_3', data: '{"n":2}' }] })
    t.same(await b.replayAfter('s', 'A.1_3'), { streamId: 'A.1', events: [] })
    t.same(await b.replayAfter('s', 'A.2_2'), { streamId: 'A.2', events: [] })
    t.equal(await b.replayAfter('s', 'A.9_9'), undefined, 'an id never written')
    t.equal(await b.replayAfter('other', 'A.1_0'), undefined, 'another session\'s ids are unknown')
    await b.deleteSession('s')
    t.equal(await a.replayAfter('s', 'A.1_0'), undefined, 'deleted')
  })

  t.test('the request a stream answers, recorded with its priming event, comes with every replay of the stream', async (t) => {
    const [a, b] = await make({ maxEvents: 100, maxBytes: 1 << 20 })
    await a.append('q', 'A.1', { id: 'A.1_1', data: '', requestId: 'req-7' })
    await a.append('q', 'A.2', { id: 'A.2_2', data: '', requestId: 8 })
    await a.append('q', 'A.1', { id: 'A.1_3', data: '{"n":1}' })
    await a.append('q', 'A.3', { id: 'A.3_4', data: '{"n":2}' })
    t.same(await b.replayAfter('q', 'A.1_1'), { streamId: 'A.1', requestId: 'req-7', events: [{ id: 'A.1_3', data: '{"n":1}' }] }, 'after the priming event')
    t.same(await b.replayAfter('q', 'A.1_3'), { streamId: 'A.1', requestId: 'req-7', events: [] }, 'after a later event')
    t.same(await b.replayAfter('q', 'A.2_2'), { streamId: 'A.2', requestId: 8, events: [] }, 'a numeric id stays a number')
    t.same(await b.replayAfter('q', 'A.3_4'), { streamId: 'A.3', events: [] }, 'none recorded: none given')
  })

  t.test('bounded by count and by bytes per session, oldest first; an oversized event clears the log', async (t) => {
    const [a, b] = await make({ maxEvents: 3, maxBytes: 1024 })
    for (let i = 0; i < 5; i++) await a.append('c', 'S', { id: `S_${i}`, data: `{"i":${i}}` })
    t.equal(await b.replayAfter('c', 'S_1'), undefined, 'evicted by count')
    t.same((await b.replayAfter('c', 'S_2'))?.events.map((e) => e.id), ['S_3', 'S_4'])
    const big = 'x'.repeat(400)
    for (let i = 0; i < 3; i++) await a.append('y', 'S', { id: `S_${i}`, data: JSON.stringify(big) })
    t.equal(await b.replayAfter('y', 'S_0'), undefined, 'evicted by bytes (3 x 402 > 1024)')
    t.same((await b.replayAfter('y', 'S_1'))?.events.map((e) => e.id), ['S_2'])
    await a.append('y', 'S', { id: 'S_huge', data: JSON.stringify('z'.repeat(2000)) })
    t.equal(await b.replayAfter('y', 'S_2'), undefined, 'nothing before an event too large to keep')
    t.equal(await b.replayAfter('y', 'S_huge'), undefined, 'nor the event itself')
    await a.append('y', 'S', { id: 'S_next', data: '{}' })
    t.same(await b.replayAfter('y', 'S_next'), { streamId: 'S', events: [] }, 'and the log goes on')
  })
}

/** A store of 100 events and 1000 bytes per session, bounded per client and overall by `bytes`. */
export type BoundedEventStore = (bytes: EventBytes) => Promise<SessionEventStore>

export function eventBytesContract (t: Test, make: BoundedEventStore): void {
  t.test('bounded per client and overall: the session\'s oldest go first, then the event; every byte given back', async (t) => {
    const refused: string[] = []
    const bytes = new EventBytes(3000, 2000, (limit) => { refused.push(limit) })
    const store = await make(bytes)
    const event = (id: string, size: number): StoredEvent => ({ id, data: 'd'.repeat(size) })
    await store.append('a1', '1', event('1_1', 600), 'alice')
    await store.append('a1', '1', event('1_2', 600), 'alice')
    t.equal(bytes.of('alice'), 600, 'the session\'s own bound (1000) dropped its oldest event')
    await store.append('a2', '1', event('1_1', 900), 'alice')
    await store.append('a3', '1', event('1_1', 600), 'alice')
    t.same([bytes.of('alice'), refused], [1500, ['eventStoreBytesPerClient']], 'past the client\'s share (2000) the event is not kept')
    t.equal(await store.replayAfter('a3', '1_1'), undefined)
    await store.append('b1', '1', event('1_1', 900), 'bob')
    await store.append('b1', '1', event('1_2', 800), 'bob')
    t.same([bytes.of('bob'), bytes.total, refused.length], [800, 2300, 1], 'a session over its own bound drops its own oldest, no refusal')
    await store.append('c1', '1', event('1_1', 800), 'carol')
    t.same([bytes.of('carol'), bytes.total, refused.at(-1)], [0, 2300, 'eventStoreBytesTotal'], 'past everyone\'s bound (3000): not kept')
    await store.append('b2', '1', event('1_1', 500), 'bob')
    await store.append('b2', '1', event('1_2', 400), 'bob')
    t.same([bytes.of('bob'), bytes.total, refused.length, await store.replayAfter('b2', '1_1')], [1200, 2700, 3, undefined],
      'past everyone\'s bound again: the session drops its own oldest first, then the event fits (a refusal: the bound cut in)')
    t.equal((await store.replayAfter('b1', '1_2'))?.streamId, '1', 'another session of the client keeps its events')
    // A shared store hears when a session's copy closes on this instance (one process deletes instead).
    if (store.release !== undefined) {
      store.release('b1')
      t.same([bytes.of('bob'), bytes.total], [400, 1900], 'a session released (its copy here closed) no longer counts here')
      t.equal((await store.replayAfter('b1', '1_2'))?.streamId, '1', 'and its events live on for the other instances')
    }
    for (const session of ['a1', 'a2', 'a3', 'b1', 'b2', 'c1']) await store.deleteSession(session)
    t.same([bytes.total, bytes.of('alice'), bytes.of('bob'), bytes.of('carol')], [0, 0, 0, 0], 'nothing held once every session is gone')
    await store.append('x', '1', event('1_1', 10))
    t.equal(bytes.total, 0, 'an event without a client counts against its session only')
  })
}

export type TaskStores = (now: () => number) => Promise<[TaskStore, TaskStore]>

function task (taskId: string, owner: string, createdAt = 1000, ttlMs = 500): StoredTask {
  return { taskId, owner, status: 'working', createdAt, lastUpdatedAt: createdAt, ttlMs, pollIntervalMs: 100 }
}

export function taskStoreContract (t: Test, make: TaskStores): void {
  const limits = { maxTasks: 3, maxTasksPerOwner: 2 }

  t.test('tasks: found by their owner only, on any instance, until their TTL', async (t) => {
    let now = Date.now()
    const [a, b] = await make(() => now)
    await a.create(task('a', 'alice', now, 500), limits)
    t.equal((await b.get('a', 'alice'))?.taskId, 'a')
    t.equal(await b.get('a', 'bob'), undefined, 'another owner sees nothing')
    t.equal(await b.get('nope', 'alice'), undefined)
    now += 499
    t.ok(await b.get('a', 'alice'), 'still there 1 ms before the TTL ends')
    now += 1
    t.equal(await b.get('a', 'alice'), undefined, 'gone once createdAt + ttlMs is reached')
    t.equal(await b.update('a', { status: 'completed' }, now), undefined, 'an expired task cannot be updated')
  })

  t.test('tasks: bounds overall and per owner, across instances, freed on expiry', async (t) => {
    let now = Date.now()
    const [a, b] = await make(() => now)
    await a.create(task('a1', 'alice', now), limits)
    await b.create(task('a2', 'alice', now), limits)
    await t.rejects(async () => { await a.create(task('a3', 'alice', now), limits) }, { code: 'FST_MCP_TASK_LIMIT', message: /this client has 2 tasks/ })
    await b.create(task('b1', 'bob', now), limits)
    await t.rejects(async () => { await a.create(task('c1', 'carol', now), limits) }, { code: 'FST_MCP_TASK_LIMIT', message: /the server holds 3 tasks/ })
    now += 500
    // Read once expired, as a client polling would (a memory store frees an expired task on access or on its timer).
    for (const [id, owner] of [['a1', 'alice'], ['a2', 'alice'], ['b1', 'bob']]) t.equal(await a.get(id as string, owner as string), undefined)
    await b.create(task('a4', 'alice', now), limits)
    t.ok(await a.get('a4', 'alice'), 'room again after an expiry')
  })

  t.test('tasks: updates apply to live tasks only; the first terminal status wins; results kept exactly', async (t) => {
    const now = Date.now()
    const [a, b] = await make(() => now)
    await a.create(task('u', 'alice', now, 60_000), limits)
    const waiting = await b.update('u', { status: 'input_required', inputRequests: { k: { method: 'elicitation/create' } } }, now + 1)
    t.equal(waiting?.status, 'input_required')
    t.equal(waiting?.lastUpdatedAt, now + 1)
    const resumed = await a.update('u', { status: 'working', inputRequests: undefined }, now + 2)
    t.notOk(resumed !== undefined && 'inputRequests' in resumed, 'inputRequests: undefined clears them')
    const result = { content: [], structuredContent: { list: [], map: {}, text: 'é/\u2028' } }
    await Promise.all([b.update('u', { status: 'completed', result }, now + 3), a.update('u', { status: 'cancelled' }, now + 3)])
    const final = await b.get('u', 'alice')
    const late = await a.update('u', { status: 'failed', error: { code: 1, message: 'x' } }, now + 4)
    t.equal(late?.status, final?.status, 'a finished task never changes')
    t.ok(final?.status === 'completed' || final?.status === 'cancelled', 'one of the two racing terminal updates won')
    if (final?.status === 'completed') t.same(final.result, result, 'empty lists and objects survive the store')
  })

  t.test('tasks: bytes bounded per client and overall; a heavier update past a bound changes nothing; weights leave with the TTL', async (t) => {
    let now = Date.now()
    const [a, b] = await make(() => now)
    // Weights are the JSON of each task (~150 bytes bare) plus, while live, the request its work holds.
    const bytes = { maxTasks: 100, maxTasksPerOwner: 100, maxBytes: 5000, maxBytesPerOwner: 3000 }
    const held = (id: string, owner: string, client: string, inputBytes = 0, ttlMs = 500): StoredTask => ({ ...task(id, owner, now, ttlMs), client, inputBytes })
    await a.create(held('x1', 'anonymous', 'address 10.0.0.1', 2000), bytes)
    await t.rejects(async () => { await b.create(held('x2', 'anonymous', 'address 10.0.0.1', 1000), bytes) },
      { code: 'FST_MCP_TASK_LIMIT', limit: 'tasks.maxBytesPerPrincipal', max: 3000 }, 'the same client, counted on any instance')
    await b.create(held('y1', 'anonymous', 'address 10.0.0.2', 2000), bytes)
    await t.rejects(async () => { await a.create(held('z1', 'anonymous', 'address 10.0.0.3', 1000), bytes) },
      { code: 'FST_MCP_TASK_LIMIT', limit: 'tasks.maxBytes', max: 5000 }, 'every client together')

    await t.rejects(async () => { await b.update('y1', { statusMessage: 's'.repeat(1500) }, now + 1, bytes) },
      { code: 'FST_MCP_TASK_LIMIT', limit: 'tasks.maxBytesPerPrincipal' })
    t.notOk((await a.get('y1', 'anonymous'))?.statusMessage, 'a refused update changes nothing')
    // Finished, the task no longer holds its request (2000 bytes): a result of 1500 fits in its place.
    const big = { content: [{ type: 'text', text: 'r'.repeat(1500) }] }
    t.equal((await b.update('y1', { status: 'completed', result: big }, now + 1, bytes))?.status, 'completed')
    await a.create(held('z2', 'anonymous', 'address 10.0.0.3', 500), bytes)
    t.equal((await a.update('z2', { statusMessage: 'm'.repeat(5000) }, now + 2))?.statusMessage?.length, 5000, 'without limits an update is never refused')

    now += 500
    for (const id of ['x1', 'y1', 'z2']) t.equal(await a.get(id, 'anonymous'), undefined)
    await b.create(held('x3', 'anonymous', 'address 10.0.0.1', 2500), bytes)
    t.ok(await a.get('x3', 'anonymous'), 'the expired tasks left the books: room again for that client and overall')
  })
}

/** Three instances' buses on one shared backend, and a way to claim stream 0 and create sessions. */
export interface BusRig {
  buses: [Bus, Bus, Bus]
  sessions: SessionStore
}

export function collect<M> (subscribe: (handler: (envelope: Envelope<M>) => void) => void): Array<Envelope<M>> {
  const seen: Array<Envelope<M>> = []
  subscribe((envelope) => { seen.push(envelope) })
  return seen
}

export function busContract (t: Test, make: () => Promise<BusRig>): void {
  t.test('send reaches the one instance addressed; control and fanout reach every instance', async (t) => {
    const { buses: [a, b, c] } = await make()
    const [da, db, dc] = [collect(a.onDirect.bind(a)), collect(b.onDirect.bind(b)), collect(c.onDirect.bind(c))]
    const [ca, cb, cc] = [collect(a.onControl.bind(a)), collect(b.onControl.bind(b)), collect(c.onControl.bind(c))]
    const [fa, fb, fc] = [collect(a.onFanout.bind(a)), collect(b.onFanout.bind(b)), collect(c.onFanout.bind(c))]
    const before = b.fanoutCursor()
    await a.send(b.self, { type: 'release', session: 's' })
    await a.control({ type: 'changed', session: 's' })
    const position = await a.fanout({ type: 'broadcast', json: '{"m":1}' })
    await until(() => db.length === 1 && ca.length + cb.length + cc.length === 3 && fa.length + fb.length + fc.length === 3, { timeoutMs: 10_000, what: 'everything delivered' })
    t.same(db[0]?.message, { type: 'release', session: 's' })
    t.equal(db[0]?.from, a.self)
    t.same([da.length, dc.length], [0, 0], 'nobody else got the direct message')
    t.same(cc[0]?.message, { type: 'changed', session: 's' })
    t.equal(fc[0]?.position, position)
    t.equal(b.fanoutCursor(), position, 'the cursor follows what was handed out')
    const history = await c.fanoutAfter(before)
    t.same(history.map((e) => [e.position, e.message]), [[position, { type: 'broadcast', json: '{"m":1}' }]])
    t.same(await c.fanoutAfter(position), [])
  })

  t.test('deliver0 logs and hands to the gateway; dropped before any gateway; claims move it', async (t) => {
    const { buses: [a, b, c], sessions } = await make()
    const [db, dc] = [collect(b.onDirect.bind(b)), collect(c.onDirect.bind(c))]
    await sessions.create(record('z'), 60_000)
    t.equal(await a.deliver0('z', '{"early":1}'), undefined, 'no gateway yet: dropped')
    t.equal(await a.deliver0('missing', '{}'), undefined, 'no session: dropped')
    await sessions.claimGateway('z', b.self)
    const p1 = await a.deliver0('z', '{"n":1}')
    t.type(p1, 'string')
    await until(() => db.length === 1, { timeoutMs: 10_000, what: 'b got it' })
    t.same(db[0]?.message, { type: 'event', session: 'z', position: p1, json: '{"n":1}' })
    const claim = await sessions.claimGateway('z', c.self)
    t.same(claim, { previous: b.self, tail: p1 })
    const p2 = await a.deliver0('z', '{"n":2}') as string
    await until(() => dc.length === 1, { timeoutMs: 10_000, what: 'c got it' })
    t.same(dc[0]?.message, { type: 'event', session: 'z', position: p2, json: '{"n":2}' })
    t.same(await c.log0After('z', '0'), [{ position: p1, json: '{"n":1}' }, { position: p2, json: '{"n":2}' }])
    t.same(await c.log0After('z', p1 as string), [{ position: p2, json: '{"n":2}' }])
    await sessions.delete('z')
    t.same(await c.log0After('z', '0'), [], 'the log goes with the session')
  })

  t.test('alive: instances see each other; a closed one is gone', async (t) => {
    const { buses: [a, b, c] } = await make()
    await until(() => a.alive(b.self) && b.alive(c.self) && c.alive(a.self), { timeoutMs: 10_000, what: 'all alive' })
    t.ok(a.alive(a.self))
    t.notOk(a.alive('never-started'))
    await c.close()
    await until(() => !a.alive(c.self), { timeoutMs: 10_000, what: 'c is gone for a' })
  })

  t.test('checkAlive asks the registry; watchDeath tells once an instance is gone, and not after it stopped watching', async (t) => {
    const { buses: [a, b, c] } = await make()
    t.ok(await a.checkAlive(b.self))
    t.ok(await a.checkAlive(a.self))
    t.notOk(await a.checkAlive('never-started'))
    const deaths: string[] = []
    a.watchDeath(b.self, () => { deaths.push('b') })
    const stop = a.watchDeath(c.self, () => { deaths.push('c') })
    stop()
    a.watchDeath('never-started', () => { deaths.push('never') })
    await until(() => deaths.includes('never'), { timeoutMs: 10_000, what: 'a never-started instance is dead' })
    t.same(deaths, ['never'], 'the live ones are not')
    await b.close()
    await c.close()
    await until(() => deaths.includes('b'), { timeoutMs: 10_000, what: 'b is dead for a' })
    await sleep(50)
    t.same(deaths.sort(), ['b', 'never'], 'each told once; c was not watched any more')
    t.notOk(await a.checkAlive(b.self))
  })
}
