// Issue 12, must-show 2 through the real parts: three instance processes serving the whole catalog
// (test/fixtures/scale-catalog-instance.mjs) on one real redis-server, behind a real HAProxy doing
// round-robin. The official SDK client over Streamable HTTP and legacy SSE, and the SDK v2 client
// pinned to 2026-07-28, talk to HAProxy only; the instances' own ports serve the test's control
// requests (broadcast / notify from a chosen instance) and nothing else.
import t, { type Test } from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import {
  CreateMessageRequestSchema, ElicitRequestSchema, LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema, ToolListChangedNotificationSchema
} from '@modelcontextprotocol/sdk/types.js'
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client'
import { runCatalogTable } from '../helpers/catalog-table.js'
import { textOf as text } from '../helpers/clients.js'
import { abortedTags, control, startProcessCluster, type InstanceProcess as CatalogInstance, type ProcessCluster as CatalogCluster } from '../helpers/cluster.js'
import { haproxyTest } from '../helpers/haproxy.js'
import { runModernCatalog } from '../helpers/modern-catalog.js'
import { redisTest } from '../helpers/redis-server.js'
import { sleep, within } from '../helpers/wait.js'

/** A bounded wait: generous on a loaded machine. */
const WAIT = { timeoutMs: 10_000, everyMs: 25 }

/** An official SDK client that answers elicitation and sampling like a host. */
function hostClient (): Client {
  const client = new Client({ name: 'haproxy-catalog', version: '1.0.0' }, { capabilities: { sampling: {}, elicitation: {} } })
  client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { name: 'Ada' } }))
  client.setRequestHandler(CreateMessageRequestSchema, async () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: 'four' } }))
  return client
}

async function streamable (t: Test, cluster: CatalogCluster): Promise<{ client: Client, transport: StreamableHTTPClientTransport }> {
  const client = hostClient()
  const transport = new StreamableHTTPClientTransport(new URL(`${cluster.url}/mcp`), {
    reconnectionOptions: { initialReconnectionDelay: 20, maxReconnectionDelay: 100, reconnectionDelayGrowFactor: 1.5, maxRetries: 5 }
  })
  await client.connect(transport)
  t.teardown(async () => { await client.close() })
  return { client, transport }
}

async function legacy (t: Test, cluster: CatalogCluster): Promise<Client> {
  const client = hostClient()
  await client.connect(new SSEClientTransport(new URL(`${cluster.url}/sse`)))
  t.teardown(async () => { await client.close() })
  return client
}

async function modern (t: Test, cluster: CatalogCluster): Promise<ModernClient> {
  const client = new ModernClient({ name: 'haproxy-v2', version: '1.0.0' }, {
    capabilities: { sampling: {}, elicitation: {}, roots: {} },
    versionNegotiation: { mode: { pin: '2026-07-28' } }
  })
  client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'four' }, model: 'm', stopReason: 'endTurn' }))
  client.setRequestHandler('elicitation/create', async (request) => {
    const message = String((request.params as { message?: unknown }).message)
    const content: Record<string, string> = message.startsWith('Colour') ? { color: 'blue' } : { name: 'Ada' }
    return { action: 'accept', content }
  })
  client.setRequestHandler('roots/list', async () => ({ roots: [{ uri: 'file:///work', name: 'work' }] }))
  await client.connect(new ModernTransport(new URL(`${cluster.url}/mcp`)))
  t.teardown(async () => { await client.close() })
  return client
}

/** Records the logs a 2025 client hears, by their data. */
function logsOf (client: Client): unknown[] {
  const logs: unknown[] = []
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => { logs.push(n.params.data) })
  return logs
}

/**
 * Until every client heard a broadcast `tag` from `from` (re-sent while not): a Streamable client
 * opens its standalone GET stream after initialize, through the balancer, and a broadcast sent
 * before it is connected is not for it.
 */
async function heard (t: Test, from: CatalogInstance, logs: unknown[][], tag: string): Promise<void> {
  let checks = 0
  await within(async () => {
    if (logs.every((l) => l.includes(tag))) return true
    if (checks++ % 8 === 0) await control(from, { action: 'broadcast', notification: { method: 'notifications/message', params: { level: 'info', data: tag } } })
    return false
  }, { timeoutMs: 5000, everyMs: 25 })
  t.ok(logs.every((l) => l.includes(tag)), `every client heard "${tag}" from ${from.id}`)
}

/** Where `wait_for_abort` with `tag` saw its abort (the instance that executed it), once it did. */
async function abortedOn (t: Test, cluster: CatalogCluster, tag: string): Promise<CatalogInstance | undefined> {
  t.ok(await within(() => cluster.instances.some((instance) => abortedTags(instance).includes(tag)), WAIT), `${tag}: the executing handler saw the abort`)
  return cluster.instances.find((instance) => abortedTags(instance).includes(tag))
}

/** The instance whose `landed` list gained an entry of `kind` after `before` (one count per instance). */
function landedSince (cluster: CatalogCluster, before: number[], kind: string): CatalogInstance[] {
  return cluster.instances.filter((instance, i) => instance.lines.slice(before[i]).some((line) => line.landed === kind))
}

const marks = (cluster: CatalogCluster): number[] => cluster.instances.map((instance) => instance.lines.length)

/** Starts `wait_for_abort`, waits for its first progress (the handler runs), aborts it from the client. */
async function cancelRunning (t: Test, client: Client, tag: string): Promise<void> {
  const controller = new AbortController()
  let started = false
  const call = client.callTool({ name: 'wait_for_abort', arguments: { tag } }, undefined, { signal: controller.signal, onprogress: () => { started = true } })
  t.ok(await within(() => started, WAIT), `${tag}: the handler runs`)
  controller.abort('enough')
  await t.rejects(call, `${tag}: the call rejects on the client`)
}

/**
 * Cancels running calls until one's cancel landed on another instance than the one executing it
 * (round-robin makes that the usual case; a few tries make it certain), every handler aborted.
 */
async function cancelAcross (t: Test, cluster: CatalogCluster, client: Client, prefix: string): Promise<void> {
  let crossed = ''
  for (let i = 0; i < 6 && crossed === ''; i++) {
    const tag = `${prefix}-${i}`
    const before = marks(cluster)
    await cancelRunning(t, client, tag)
    const executor = await abortedOn(t, cluster, tag)
    if (executor === undefined) return
    t.ok(await within(() => landedSince(cluster, before, 'cancel').length > 0, WAIT), `${tag}: the cancel reached an instance`)
    const landed = landedSince(cluster, before, 'cancel')[0]
    if (executor !== undefined && landed !== undefined && landed !== executor) crossed = `${landed.id} → ${executor.id}`
  }
  t.not(crossed, '', `a cancel POSTed to one instance aborted the handler on another (${crossed})`)
}

const redis = redisTest(t)
const haproxy = redis.skip === false ? haproxyTest(t) : redis
t.test('3 catalog instances on one redis-server behind HAProxy round-robin', { skip: haproxy.skip }, async (t) => {
  const cluster = await startProcessCluster(t, 'scale-catalog-instance.mjs')
  const [i0, i1, i2] = cluster.instances as [CatalogInstance, CatalogInstance, CatalogInstance]

  t.test('Streamable HTTP: the whole catalog table, the calls spread over every instance', async (t) => {
    const { client } = await streamable(t, cluster)
    await runCatalogTable(t, client)
    const ran = new Set<string>()
    for (let i = 0; i < 6; i++) ran.add(text(await client.callTool({ name: 'where', arguments: {} })))
    t.same([...ran].sort(), ['i0', 'i1', 'i2'], 'one session\'s calls ran on every instance')
  })

  t.test('Streamable HTTP: progress, and a log level set through one request holds on every instance', async (t) => {
    const { client } = await streamable(t, cluster)
    const logs = logsOf(client)
    await client.setLoggingLevel('warning')
    for (let i = 0; i < 3; i++) {
      const progress: number[] = []
      t.same(text(await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } })), 'done 3')
      t.same(progress, [1, 2, 3].slice(0, progress.length), 'progress in order')
      t.ok(progress.length >= 2, `progress reached the client (${progress.join()})`)
    }
    t.same(logs, [], 'the info logs are below the level set (on one instance), on every instance')
    await client.setLoggingLevel('debug')
    const ran = new Set<string>()
    for (let i = 0; i < 3; i++) {
      await client.callTool({ name: 'progress', arguments: { steps: 1 } })
      ran.add(text(await client.callTool({ name: 'where', arguments: {} })))
    }
    t.same(logs, [{ done: 1 }, { done: 1 }, { done: 1 }], 'the new level holds on every instance')
    t.ok(ran.size >= 2, `the calls ran on several instances (${[...ran].join()})`)
  })

  t.test('Streamable HTTP: elicitation and sampling, the replies POSTed through the balancer', async (t) => {
    const { client } = await streamable(t, cluster)
    for (let i = 0; i < 3; i++) {
      t.same(await client.callTool({ name: 'ask_user', arguments: { message: 'Name?' } }), { content: [{ type: 'text', text: 'user accept: {"name":"Ada"}' }] }, 'elicitation')
      t.same(await client.callTool({ name: 'ask_model', arguments: { question: '2+2?' } }), { content: [{ type: 'text', text: 'm said: four' }] }, 'sampling')
    }
  })

  t.test('Streamable HTTP: a cancel landing on another instance aborts the handler', async (t) => {
    const { client } = await streamable(t, cluster)
    await cancelAcross(t, cluster, client, 'haproxy-streamable-cancel')
    t.equal(text(await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })), '3', 'the session goes on')
  })

  t.test('Streamable HTTP: resources/subscribe, then an update notified on each instance reaches the subscriber once each', async (t) => {
    const { client: subscriber } = await streamable(t, cluster)
    const { client: quitter } = await streamable(t, cluster)
    const logs = [logsOf(subscriber), logsOf(quitter)]
    const updates: string[][] = [[], []]
    subscriber.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates[0]?.push(n.params.uri) })
    quitter.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates[1]?.push(n.params.uri) })
    await heard(t, i0, logs, 'ready')
    await subscriber.subscribeResource({ uri: 'docs://readme' })
    await quitter.subscribeResource({ uri: 'docs://readme' })
    await quitter.unsubscribeResource({ uri: 'docs://readme' })
    for (const instance of cluster.instances) await control(instance, { action: 'updated', uri: 'docs://readme' })
    t.ok(await within(() => (updates[0]?.length ?? 0) >= 3, WAIT), 'the subscriber heard the three updates')
    // A marker after the updates, on the same streams: an update still to come would be ahead of it.
    await heard(t, i2, logs, 'marker')
    t.same(updates, [['docs://readme', 'docs://readme', 'docs://readme'], []], 'once per notify, from every instance; none after unsubscribing (through another request)')
  })

  t.test('Streamable HTTP: closeStream mid-call, the SDK resumes with Last-Event-ID through HAProxy', async (t) => {
    const { client } = await streamable(t, cluster)
    const ran = new Set<string>()
    for (let i = 0; i < 3; i++) {
      const progress: number[] = []
      const result = await client.callTool({ name: 'closer', arguments: {} }, undefined, { onprogress: (p) => { progress.push(p.progress) }, resetTimeoutOnProgress: true })
      const where = /^closed on (i\d)$/.exec(text(result))?.[1]
      t.ok(where !== undefined, `the answer arrives on the resumed stream (${text(result)})`)
      ran.add(where ?? '')
      t.same(progress, [1, 2, 3], 'every progress, before and after the close, none lost or doubled')
    }
    t.ok(ran.size >= 2, `calls ran on several instances, each resumed through the balancer (${[...ran].join()})`)
  })

  t.test('Streamable HTTP: a DELETE landing on another instance ends the session everywhere and aborts its running call', async (t) => {
    let crossed = ''
    for (let i = 0; i < 4 && crossed === ''; i++) {
      const tag = `haproxy-delete-${i}`
      const { client, transport } = await streamable(t, cluster)
      const session = transport.sessionId ?? ''
      let started = false
      const call = client.callTool({ name: 'wait_for_abort', arguments: { tag } }, undefined, { onprogress: () => { started = true } }).catch((error: unknown) => error)
      t.ok(await within(() => started, WAIT), `${tag}: the handler runs`)
      const before = marks(cluster)
      await transport.terminateSession()
      const executor = await abortedOn(t, cluster, tag)
      if (executor === undefined) return
      t.ok(await within(() => landedSince(cluster, before, 'DELETE').length > 0, WAIT), 'the DELETE reached an instance')
      const landed = landedSince(cluster, before, 'DELETE')
      t.equal(landed.length, 1, 'one DELETE, on one instance')
      for (const instance of cluster.instances) {
        const response = await fetch(`${instance.url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
        })
        await response.text()
        t.equal(response.status, 404, `${instance.id}: the ended session is unknown`)
      }
      await client.close()
      await call
      if (executor !== undefined && landed[0] !== undefined && landed[0] !== executor) crossed = `${landed[0].id}, the call on ${executor.id}`
    }
    t.not(crossed, '', `a DELETE on one instance ended a session whose call ran on another (${crossed})`)
  })

  t.test('legacy SSE: the catalog table, progress, logging, elicitation, sampling, cancellation, subscriptions, POSTs forwarded to the stream\'s owner', async (t) => {
    const client = await legacy(t, cluster)
    await runCatalogTable(t, client)
    const owners = new Set<string>()
    for (let i = 0; i < 6; i++) owners.add(text(await client.callTool({ name: 'where', arguments: {} })))
    t.equal(owners.size, 1, `every POST executed by the stream's owner (${[...owners].join()})`)
    const owner = cluster.instances.find((instance) => owners.has(instance.id))

    const logs = logsOf(client)
    await client.setLoggingLevel('warning')
    const progress: number[] = []
    await client.callTool({ name: 'progress', arguments: { steps: 3 } }, undefined, { onprogress: (p) => { progress.push(p.progress) } })
    t.same(progress, [1, 2, 3].slice(0, progress.length), 'progress in order')
    t.ok(progress.length >= 2, `progress reached the client (${progress.join()})`)
    await client.setLoggingLevel('debug')
    await client.callTool({ name: 'progress', arguments: { steps: 1 } })
    t.same(logs, [{ done: 1 }], 'logs at the level set')

    for (let i = 0; i < 2; i++) {
      t.same(await client.callTool({ name: 'ask_user', arguments: { message: 'Name?' } }), { content: [{ type: 'text', text: 'user accept: {"name":"Ada"}' }] }, 'elicitation, the reply forwarded')
      t.same(await client.callTool({ name: 'ask_model', arguments: { question: '2+2?' } }), { content: [{ type: 'text', text: 'm said: four' }] }, 'sampling, the reply forwarded')
    }

    await cancelAcross(t, cluster, client, 'haproxy-sse-cancel')
    t.ok(cluster.instances.every((instance) => instance === owner || !abortedTags(instance).some((tag) => tag.startsWith('haproxy-sse-cancel'))), 'every call ran on the owner')

    const updates: string[] = []
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => { updates.push(n.params.uri) })
    await client.subscribeResource({ uri: 'docs://readme' })
    for (const instance of cluster.instances) await control(instance, { action: 'updated', uri: 'docs://readme' })
    t.ok(await within(() => updates.length >= 3, WAIT), 'the three updates')
    await heard(t, i1, [logs], 'marker')
    t.same(updates, ['docs://readme', 'docs://readme', 'docs://readme'], 'once per notify, from every instance')
  })

  t.test('2026-07-28 client (SDK v2): the catalog, MRTR retries on other instances, cancellation, a listen stream hearing another instance', async (t) => {
    const client = await modern(t, cluster)
    await runModernCatalog(t, client)

    const before = marks(cluster)
    t.same(text(await client.callTool({ name: 'ask_model', arguments: { question: '2+2?' } })), 'm said: four', 'sampling through input_required')
    t.same(text(await client.callTool({ name: 'ask_user', arguments: { message: 'Name?' } })), 'user accept: {"name":"Ada"}', 'elicitation through input_required')
    t.same(text(await client.callTool({ name: 'survey', arguments: {} })), 'Ada likes blue in file:///work', 'three rounds, the answers carried in requestState')
    t.ok(await within(() => landedSince(cluster, before, 'retry').length >= 2, WAIT), 'the retries landed on several instances')
    t.comment(`retries landed on ${landedSince(cluster, before, 'retry').map((instance) => instance.id).join()}`)

    // A 2026-07-28 client cancels by closing its request's connection: HAProxy must pass the close on
    // (`option abortonclose`, test/helpers/haproxy.ts), and the handler see it.
    for (const tag of ['haproxy-modern-cancel-1', 'haproxy-modern-cancel-2']) {
      const controller = new AbortController()
      let started = false
      const call = client.callTool({ name: 'wait_for_abort', arguments: { tag } }, { signal: controller.signal, onprogress: () => { started = true } })
      t.ok(await within(() => started, WAIT), `${tag}: the handler runs`)
      controller.abort('enough')
      await t.rejects(call, `${tag}: the call rejects on the client`)
      await abortedOn(t, cluster, tag)
    }

    const seen = { tools: 0, updated: [] as string[] }
    client.setNotificationHandler('notifications/tools/list_changed', () => { seen.tools++ })
    client.setNotificationHandler('notifications/resources/updated', (n) => { seen.updated.push(n.params.uri) })
    const subscription = await client.listen({ toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
    t.same(subscription.honoredFilter, { toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
    const held = await Promise.all(cluster.instances.map(async (instance) => (await control(instance, { action: 'ask' })).listens))
    t.equal(held.reduce((a, b) => a + b, 0), 1, `one instance holds the listen stream (${held.join()})`)
    const others = cluster.instances.filter((_, i) => held[i] === 0)
    await control(others[0] as CatalogInstance, { action: 'updated', uri: 'docs://readme' })
    await control(others[1] as CatalogInstance, { action: 'broadcast', notification: { method: 'notifications/tools/list_changed' } })
    t.ok(await within(() => seen.updated.length >= 1 && seen.tools >= 1, WAIT), 'the update and the list change from the other two instances')
    await control(others[0] as CatalogInstance, { action: 'updated', uri: 'docs://marker' })
    await sleep(100)
    t.same(seen, { tools: 1, updated: ['docs://readme'] }, 'each once; an update of a resource not listened to is not sent')
    await subscription.close()
    t.equal(await subscription.closed, 'local')
  })

  t.test('a broadcast from one instance reaches 30 clients once each: 10 Streamable HTTP, 10 legacy SSE, 10 2026-07-28 listen streams', async (t) => {
    const sessions: Client[] = []
    for (let i = 0; i < 10; i++) sessions.push((await streamable(t, cluster)).client)
    for (let i = 0; i < 10; i++) sessions.push(await legacy(t, cluster))
    const listeners: ModernClient[] = []
    for (let i = 0; i < 10; i++) listeners.push(await modern(t, cluster))
    const logs = sessions.map(logsOf)
    const changes = [...sessions, ...listeners].map(() => 0)
    sessions.forEach((client, i) => { client.setNotificationHandler(ToolListChangedNotificationSchema, () => { changes[i] = (changes[i] ?? 0) + 1 }) })
    const markers = listeners.map(() => 0)
    listeners.forEach((client, i) => {
      client.setNotificationHandler('notifications/tools/list_changed', () => { changes[sessions.length + i] = (changes[sessions.length + i] ?? 0) + 1 })
      client.setNotificationHandler('notifications/resources/updated', () => { markers[i] = (markers[i] ?? 0) + 1 })
    })
    for (const client of listeners) await client.listen({ toolsListChanged: true, resourceSubscriptions: ['docs://readme'] })
    await heard(t, i0, logs, 'ready')

    const reached = await control(i1, { action: 'broadcast', notification: { method: 'notifications/tools/list_changed' } })
    t.equal(reached.instanceId, 'i1')
    t.ok(await within(() => changes.every((n) => n >= 1), WAIT), 'every client heard the broadcast')
    // Markers after it, on the same streams: a second copy would come before them.
    await heard(t, i1, logs, 'marker')
    await control(i1, { action: 'updated', uri: 'docs://readme' })
    t.ok(await within(() => markers.every((n) => n >= 1), WAIT), 'every listen stream heard the marker')
    t.same(changes, [...sessions, ...listeners].map(() => 1), 'a broadcast from i1 reached each of the 30 clients exactly once')
  })
})
