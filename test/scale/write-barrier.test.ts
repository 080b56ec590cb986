// The barrier an answer waits at in scale-out (issue 19, item 15): the writes made before it, in
// whatever order they settle, failed ones too, bounded in time; nothing to wait for, no wait.
import t from 'tap'
import { WriteBarrier } from '../../src/scale/redis/bus/write-barrier.js'

interface Pending { promise: Promise<string>, resolve: () => void, reject: () => void }

function pending (name: string): Pending {
  const settle: Partial<Pending> = {}
  const promise = new Promise<string>((resolve, reject) => {
    settle.resolve = () => { resolve(name) }
    settle.reject = () => { reject(new Error(name)) }
  })
  return { promise, resolve: () => { settle.resolve?.() }, reject: () => { settle.reject?.() } }
}

/** Whether `promise` settled within a few turns of the event loop. */
async function settledSoon (promise: Promise<void>): Promise<boolean> {
  let done = false
  void promise.then(() => { done = true })
  await new Promise((resolve) => setImmediate(resolve))
  return done
}

t.test('nothing pending: no promise at all, so an answer does not wait a turn', async (t) => {
  const barrier = new WriteBarrier(1000)
  t.equal(barrier.settled(), undefined)
  const write = pending('a')
  t.equal(barrier.track(write.promise), write.promise, 'track hands the write back')
  write.resolve()
  await write.promise
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(barrier.settled(), undefined, 'nothing pending once it settled')
})

t.test('waits for every write tracked before, in whatever order they settle, failed ones too; not for later ones', async (t) => {
  const barrier = new WriteBarrier(10_000)
  const [a, b] = [pending('a'), pending('b')]
  barrier.track(a.promise)
  barrier.track(b.promise).catch(() => {})
  const wait = barrier.settled()
  if (wait === undefined) throw new Error('two writes pending, nothing to wait for')
  const c = pending('c')
  barrier.track(c.promise)
  b.reject()
  t.notOk(await settledSoon(wait), 'a is still pending')
  a.resolve()
  t.ok(await settledSoon(wait), 'a and b settled (b failed: nothing more will come of it), c is later')
  t.type(barrier.settled(), Promise, 'c is pending still')
  c.resolve()
  await c.promise
  await new Promise((resolve) => setImmediate(resolve))
  t.equal(barrier.settled(), undefined)
})

t.test('an answer waits timeoutMs at most; the next ones do not wait while those writes are pending', async (t) => {
  const barrier = new WriteBarrier(50)
  const stuck = pending('stuck')
  barrier.track(stuck.promise)
  // The barrier's timer is unref'd (a server's sockets hold the loop); this test holds it meanwhile.
  const alive = setTimeout(() => {}, 5000)
  const started = performance.now()
  await barrier.settled()
  clearTimeout(alive)
  const waited = performance.now() - started
  t.ok(waited >= 45 && waited < 1000, `waited ${Math.round(waited)} ms`)
  t.equal(barrier.settled(), undefined, 'Redis is away: the next answer goes out at once')
  stuck.resolve()
  await stuck.promise
  await new Promise((resolve) => setImmediate(resolve))
  const next = pending('next')
  barrier.track(next.promise)
  t.type(barrier.settled(), Promise, 'once they settled, answers wait again')
  next.resolve()
})
