// SoloMap (src/util/solo-map.ts) must behave as a Map for every sequence of operations: checked
// against a real Map as the oracle, over random sequences of set, delete, get, has, clear and
// iteration on a few keys (so that the slot and the overflow Map both fill and empty in every
// order), plus the cases a session meets: an id reused while in flight, the slot freed while
// others remain, and a deletion while iterating (closing a session aborts its requests).
import t from 'tap'
import { SoloMap } from '../../src/util/solo-map.js'

/** A small deterministic generator (mulberry32), so a failure names a sequence that replays. */
function random (seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6D2B79F5) >>> 0
    let z = state
    z = Math.imul(z ^ (z >>> 15), z | 1)
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61)
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296
  }
}

const KEYS: ReadonlyArray<string | number> = [1, 2, 3, '1', 'a', 0]

t.test('random sequences agree with a Map at every step', async (t) => {
  let checks = 0
  for (let seed = 1; seed <= 200; seed++) {
    const next = random(seed)
    const solo = new SoloMap<string | number, number>()
    const oracle = new Map<string | number, number>()
    for (let step = 0; step < 60; step++) {
      const key = KEYS[Math.floor(next() * KEYS.length)] as string | number
      const op = next()
      if (op < 0.45) {
        solo.set(key, step)
        oracle.set(key, step)
      } else if (op < 0.85) {
        const deleted = solo.delete(key)
        if (deleted !== oracle.delete(key)) t.fail(`seed ${seed}, step ${step}: delete(${JSON.stringify(key)}) returned ${String(deleted)}`)
      } else if (op < 0.9) {
        solo.clear()
        oracle.clear()
      }
      const same = solo.size === oracle.size &&
        KEYS.every((k) => solo.get(k) === oracle.get(k) && solo.has(k) === oracle.has(k)) &&
        JSON.stringify([...solo].sort()) === JSON.stringify([...oracle].sort()) &&
        JSON.stringify([...solo.values()].sort()) === JSON.stringify([...oracle.values()].sort())
      if (!same) {
        t.fail(`seed ${seed}, step ${step}: ${JSON.stringify([...solo])} where a Map holds ${JSON.stringify([...oracle])}`)
        return
      }
      checks++
    }
  }
  t.equal(checks, 200 * 60, 'every step of every sequence checked')
})

t.test('an id reused while in flight replaces its entry, in the slot or among the others', async (t) => {
  const map = new SoloMap<number, string>()
  map.set(1, 'first').set(1, 'again')
  t.same([...map], [[1, 'again']], 'in the slot: one entry')
  map.set(2, 'two').set(2, 'two again')
  t.same([...map], [[1, 'again'], [2, 'two again']], 'among the others: one entry')
  t.equal(map.size, 2)
})

t.test('the slot freed while others remain: a key already among the others stays there, a new one takes the slot', async (t) => {
  const map = new SoloMap<number, string>()
  map.set(1, 'a').set(2, 'b')
  t.ok(map.delete(1))
  map.set(2, 'b2')
  t.same([...map], [[2, 'b2']], 'not two entries for key 2')
  map.set(3, 'c')
  t.equal(map.size, 2)
  t.equal(map.get(3), 'c')
  t.notOk(map.delete(1), 'a key deleted twice')
})

t.test('deleting while iterating (a session aborting its requests) visits each entry once', async (t) => {
  const map = new SoloMap<number, string>()
  map.set(1, 'a').set(2, 'b').set(3, 'c')
  const seen: string[] = []
  for (const [key, value] of map) {
    seen.push(value)
    map.delete(key)
  }
  t.same(seen, ['a', 'b', 'c'])
  t.equal(map.size, 0)
})
