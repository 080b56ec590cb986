// Budgets with `scaleOut`: two instances (child processes against dist/: `npm run build` first; a rig, `npm run test:rigs`) on
// one real redis-server behind HAProxy round-robin draw on one budget per client, the `rateLimit`
// option's and a definition's alike: the calls spread over both instances, and the (N+1)th is 429
// wherever it lands.
import t from 'tap'
import { haproxyTest } from '../helpers/haproxy.js'
import { headersFor, modern } from '../helpers/modern.js'
import { redisTest } from '../helpers/redis-server.js'
import { startProcessCluster } from '../helpers/cluster.js'

const options = { ...redisTest(t), ...(haproxyTest(t).skip !== false ? haproxyTest(t) : {}) }

async function call (url: string, name: string, id: number): Promise<{ status: number, body: any, retryAfter: string | null }> {
  const body = modern(id, 'tools/call', { name, arguments: {} })
  const response = await fetch(`${url}/mcp`, { method: 'POST', headers: headersFor(body), body: JSON.stringify(body) })
  return { status: response.status, body: await response.json(), retryAfter: response.headers.get('retry-after') }
}

t.test('rateLimit: two instances behind HAProxy share one budget', options, async (t) => {
  const { url } = await startProcessCluster(t, 'scale-instance.mjs', { count: 2, settings: { options: { rateLimit: { max: 6, timeWindow: 60_000 } } } })
  const where = new Set<string>()
  for (let id = 1; id <= 6; id++) {
    const answer = await call(url, 'where', id)
    t.equal(answer.status, 200, `call ${id} is within the budget`)
    where.add(answer.body.result.content[0].text)
  }
  t.same([...where].sort(), ['i0', 'i1'], 'both instances answered calls of the budget')
  const over = await call(url, 'where', 7)
  t.equal(over.status, 429, 'the 7th call is over the one budget, whichever instance it reached')
  t.ok(Number(over.retryAfter) >= 1)
  t.match(over.body, { id: 7, error: { code: -32006, data: { limit: 6 } } })
  t.equal((await call(url, 'where', 8)).status, 429, 'and on the other instance too')
})

t.test('a definition\'s rateLimit is shared the same way', options, async (t) => {
  const { url } = await startProcessCluster(t, 'scale-instance.mjs', { count: 2 })
  const where = new Set<string>()
  for (let id = 1; id <= 3; id++) {
    const answer = await call(url, 'limited', id)
    t.equal(answer.status, 200)
    where.add(answer.body.result.content[0].text)
  }
  t.equal(where.size, 2, 'the three calls ran on both instances')
  for (const id of [4, 5]) t.equal((await call(url, 'limited', id)).status, 429, `call ${id}: over the shared budget`)
  t.equal((await call(url, 'where', 6)).status, 200, 'other tools are not limited')
})
