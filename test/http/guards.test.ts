import t from 'tap'
import type { FastifyRequest } from 'fastify'
import { isLoopbackAddress, isLoopbackHostname, isSecureUrl } from '../../src/util/loopback.js'
import { createOriginGuard, hostnameOf } from '../../src/transports/http/guards.js'
import { startIdleSweep } from '../../src/transports/http/idle.js'
import { memoryCore } from '../helpers/memory.js'
import { sleep } from '../helpers/wait.js'

// The DNS-rebinding guard on its own, with the socket addresses a real listener
// would see (inject has no local address, so the HTTP tests cover only part of it).

function check (guard: ReturnType<typeof createOriginGuard>, localAddress: string | undefined, headers: Record<string, string>, protocol = 'http'): string | undefined {
  let outcome: string | undefined = 'not called'
  const rawHeaders = Object.entries(headers).flat()
  const request = { headers, socket: { localAddress }, raw: { rawHeaders, url: '/mcp' }, protocol } as unknown as FastifyRequest
  guard.call(undefined as never, request, undefined as never, (error?: Error) => { outcome = error?.message })
  return outcome
}

t.test('loopback addresses', async (t) => {
  for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) t.ok(isLoopbackAddress(address), address)
  for (const address of [undefined, '10.0.0.1', '::ffff:10.0.0.1', '::', '0.0.0.0', 'fe80::1']) t.notOk(isLoopbackAddress(address), String(address))
  for (const name of ['localhost', '127.0.0.1', '127.9.8.7', '[::1]']) t.ok(isLoopbackHostname(name), name)
  for (const name of ['localhost.evil.example', '127.0.0.1.nip.io', '::1', '10.0.0.1', '0.0.0.0']) t.notOk(isLoopbackHostname(name), name)
  // The one rule for key and issuer URLs, at boot and when discovery hands out new ones.
  for (const url of ['https://idp.example', 'http://localhost:8080/jwks', 'http://127.0.0.1/x', 'http://[::1]:9/']) t.ok(isSecureUrl(url), url)
  for (const url of ['http://idp.example', 'ftp://localhost/', 'not a url', 'http://127.0.0.1.nip.io/']) t.notOk(isSecureUrl(url), url)
})

t.test('host names without their port', async (t) => {
  t.equal(hostnameOf('Example.COM:8080'), 'example.com')
  t.equal(hostnameOf('example.com'), 'example.com')
  t.equal(hostnameOf('[::1]:3000'), '[::1]')
  t.equal(hostnameOf('[::1]'), '[::1]')
  t.equal(hostnameOf('[::1'), '[::1', 'a broken bracket stays as it is (and matches nothing)')
})

t.test('the Host check: loopback names on loopback, allowedHosts whenever set', async (t) => {
  const guard = createOriginGuard({ allowOrigins: undefined, allowedHosts: ['mcp.internal:9000'] })
  t.equal(check(guard, '127.0.0.1', { host: 'localhost:1234' }), undefined)
  t.equal(check(guard, '::ffff:127.0.0.1', { host: '[::1]:1234' }), undefined)
  t.equal(check(guard, '127.0.0.1', { host: 'mcp.internal:9000' }), undefined, 'an allowed host with its port')
  t.equal(check(guard, '127.0.0.1', { host: 'mcp.internal:9001' }), 'Forbidden: the Host header is not allowed', 'the same name on another port is not')
  t.equal(check(guard, '127.0.0.1', {}), 'Forbidden: the Host header is not allowed', 'no Host at all')
  t.equal(check(guard, '10.0.0.5', { host: 'public.example' }), 'Forbidden: the Host header is not allowed', 'allowedHosts holds off loopback too')
  t.equal(check(guard, '10.0.0.5', { host: 'mcp.internal:9000' }), undefined, 'an allowed host off loopback')
  t.equal(check(guard, '10.0.0.5', { host: 'localhost:9000' }), 'Forbidden: the Host header is not allowed', 'loopback names only on a loopback connection')
  t.equal(check(guard, '10.0.0.5', {}), 'Forbidden: the Host header is not allowed', 'no Host at all, with allowedHosts')
  const open = createOriginGuard({ allowOrigins: undefined, allowedHosts: undefined })
  t.equal(check(open, '10.0.0.5', { host: 'public.example' }), undefined, 'without allowedHosts a non-loopback listener serves any Host')
  t.equal(check(open, '10.0.0.5', {}), undefined, 'and a request without Host (HTTP/1.0)')
  t.equal(check(open, '10.0.0.5', { host: 'a@public.example' }), 'Bad request: the Host header is invalid', 'but never an invalid one')
})

t.test('the Origin must have the scheme of the connection', async (t) => {
  const guard = createOriginGuard({ allowOrigins: undefined, allowedHosts: undefined })
  t.equal(check(guard, '127.0.0.1', { host: 'localhost:3000', origin: 'https://localhost:3000' }), 'Forbidden: the Origin is not allowed')
  t.equal(check(guard, '127.0.0.1', { host: 'localhost:3000', origin: 'https://localhost:3000' }, 'https'), undefined, 'https on https')
  t.equal(check(guard, '127.0.0.1', { host: 'localhost', origin: 'https://localhost:443' }, 'https'), undefined, 'default ports')
  t.equal(check(guard, '127.0.0.1', { host: 'localhost:3000', origin: 'http://localhost:3000' }, 'https'), 'Forbidden: the Origin is not allowed')
})

t.test('the Origin check', async (t) => {
  const closed = createOriginGuard({ allowOrigins: undefined, allowedHosts: undefined })
  t.equal(check(closed, '127.0.0.1', { host: 'localhost:3000' }), undefined, 'no Origin: not a browser')
  t.equal(check(closed, '127.0.0.1', { host: 'localhost:3000', origin: 'http://localhost:3000' }), undefined, 'same origin')
  t.equal(check(closed, '127.0.0.1', { host: 'localhost', origin: 'http://localhost:80' }), undefined, 'default ports are normalized')
  t.equal(check(closed, '127.0.0.1', { host: 'localhost:3000', origin: 'http://localhost:3001' }), 'Forbidden: the Origin is not allowed', 'another port is another origin')
  t.equal(check(closed, '127.0.0.1', { host: 'localhost:3000', origin: 'not a url' }), 'Forbidden: the Origin is not allowed')
  t.equal(check(closed, '10.0.0.5', { origin: 'http://a.example' }), 'Forbidden: the Origin is not allowed', 'no Host to compare with')
  const open = createOriginGuard({ allowOrigins: ['*'], allowedHosts: undefined })
  t.equal(check(open, '127.0.0.1', { host: 'localhost', origin: 'https://anyone.example' }), undefined, 'a wildcard allows any origin')
  t.equal(check(open, '127.0.0.1', { host: 'evil.example', origin: 'https://anyone.example' }), 'Forbidden: the Host header is not allowed', 'but never a rebinding Host')
})

t.test('idleTimeoutMs 0 disables the sweep', async (t) => {
  const { core, connect } = memoryCore()
  const { session } = connect()
  session.lastActivity = 0
  const stop = startIdleSweep(core, 0)
  await sleep(30)
  stop()
  t.equal(core.sessionCount, 1, 'an ancient session stays open')
})
