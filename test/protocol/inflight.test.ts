import t from 'tap'
import { InflightRequest } from '../../src/protocol/inflight.js'

t.test('an abort before anyone read the signal is applied when the signal is created', async (t) => {
  const request = new InflightRequest()
  const reason = new Error('cancelled')
  request.abort(reason)
  t.ok(request.aborted)
  t.ok(request.signal.aborted, 'the late signal is already aborted')
  t.equal(request.signal.reason, reason, 'with the original reason')
})

t.test('an abort after the signal was read fires it once', async (t) => {
  const request = new InflightRequest()
  const signal = request.signal
  let fired = 0
  signal.addEventListener('abort', () => { fired++ })
  t.notOk(request.aborted)
  request.abort('first')
  request.abort('second')
  t.equal(fired, 1)
  t.equal(signal.reason, 'first', 'a second abort changes nothing')
  t.equal(request.signal, signal, 'the same signal every time')
})

t.test('onAbort: told once, without a signal; removable; at once when already aborted', async (t) => {
  const request = new InflightRequest()
  const told: unknown[] = []
  const kept = request.onAbort((reason) => { told.push(['kept', reason]) })
  const removed = request.onAbort((reason) => { told.push(['removed', reason]) })
  removed()
  removed()
  request.abort('gone')
  request.abort('again')
  t.same(told, [['kept', 'gone']])
  kept()
  let late: unknown
  const stop = request.onAbort((reason) => { late = reason })
  t.equal(late, 'gone', 'a listener added after the abort is told at once')
  stop()
})
