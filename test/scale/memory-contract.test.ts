// The in-process implementations of the scale-out ports against the same contracts as the Redis
// ones (test/scale/redis-stores.test.ts): the routing suite runs on them, so they must agree.
import t, { type Test } from 'tap'
import { MemoryTaskStore } from '../../src/protocol/tasks/memory-store.js'
import { MemoryHub } from '../../src/scale/memory/bus.js'
import { MemoryEventStore } from '../../src/scale/memory/event-store.js'
import { busContract, eventBytesContract, eventStoreContract, sessionStoreContract, taskStoreContract } from '../helpers/scale-contract.js'

function hub (t: Test): MemoryHub {
  const made = new MemoryHub()
  t.teardown(() => made.close())
  return made
}

t.test('SessionStore', async (t) => {
  sessionStoreContract(t, async () => {
    const { sessions } = hub(t)
    return [sessions, sessions]
  })
})

t.test('EventStore', async (t) => {
  eventStoreContract(t, async ({ maxEvents, maxBytes }) => {
    const store = new MemoryEventStore(maxEvents, maxBytes)
    return [store, store]
  })
  eventBytesContract(t, async (bytes) => new MemoryEventStore(100, 1000, bytes))
})

t.test('TaskStore', async (t) => {
  taskStoreContract(t, async (now) => {
    const store = new MemoryTaskStore({ now })
    t.teardown(() => store.close())
    return [store, store]
  })
})

t.test('Bus', async (t) => {
  busContract(t, async () => {
    const shared = hub(t)
    const [a, b, c] = [shared.engine(), shared.engine(), shared.engine()]
    return { buses: [a.bus, b.bus, c.bus], sessions: shared.sessions }
  })
})
