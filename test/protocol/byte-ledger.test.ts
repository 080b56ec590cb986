// ByteLedger (src/protocol/limits.ts): the bytes clients hold, bounded per client and overall. A
// client's count stays in its map at 0 when it gives everything back (deleting the entry made V8
// shrink the map on every request of a one-at-a-time client), and the zeros are swept once the map
// has grown; these check that the bounds still hold throughout and that the map stays bounded.
import t from 'tap'
import { ByteLedger } from '../../src/protocol/limits.js'

const countsOf = (ledger: ByteLedger): Map<string, number> => (ledger as unknown as { perClient: Map<string, number> }).perClient

t.test('bounds: per client, then overall; a refused take takes nothing', async (t) => {
  const ledger = new ByteLedger(100, 60)
  t.equal(ledger.take('a', 60), undefined)
  t.equal(ledger.take('a', 1), 'perClient', 'a is at its share')
  t.equal(ledger.take('b', 41), 'overall', '60 + 41 is past the overall bound')
  t.equal(ledger.take('b', 40), undefined)
  t.equal(ledger.total, 100)
  ledger.give('a', 60)
  t.equal(ledger.of('a'), 0, 'a holds nothing once it gave everything back')
  t.equal(ledger.take('a', 60), undefined, 'and may take its whole share again')
  t.equal(ledger.total, 100)
})

t.test('give of a client that holds nothing changes nothing but the total it was told', async (t) => {
  const ledger = new ByteLedger(100, 100)
  ledger.give('ghost', 0)
  t.equal(countsOf(ledger).has('ghost'), false, 'no entry made for it')
  t.equal(ledger.of('ghost'), 0)
})

t.test('hold counts past the bounds; the next take is refused until enough is given back', async (t) => {
  const ledger = new ByteLedger(100, 50)
  ledger.hold('a', 70)
  t.equal(ledger.take('a', 1), 'perClient')
  ledger.give('a', 30)
  t.equal(ledger.take('a', 10), undefined)
  t.equal(ledger.of('a'), 50)
})

t.test('3,000 clients that take and give back: the map stays bounded, every count right', async (t) => {
  const ledger = new ByteLedger(1_000_000, 1000)
  let refused = 0
  for (let i = 0; i < 3000; i++) {
    if (ledger.take(`client-${i}`, 10) !== undefined) refused++
    ledger.give(`client-${i}`, 10)
  }
  t.equal(refused, 0, 'every take within the bounds')
  const counts = countsOf(ledger)
  t.ok(counts.size <= 1025, `${counts.size} counts kept for 3,000 clients come and gone`)
  t.equal(ledger.total, 0)
  // A client holding something is never swept: its count survives the sweeps of idle ones.
  t.equal(ledger.take('holder', 500), undefined)
  for (let i = 0; i < 3000; i++) {
    ledger.take(`idle-${i}`, 1)
    ledger.give(`idle-${i}`, 1)
  }
  t.equal(ledger.of('holder'), 500, 'the holder\'s count is kept through the sweeps')
  t.equal(ledger.take('holder', 501), 'perClient', 'and its share still bounds it')
})
