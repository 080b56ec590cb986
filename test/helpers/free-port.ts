import { once } from 'node:events'
import { createServer } from 'node:net'

/** A TCP port free on 127.0.0.1 right now, for child processes (redis-server, haproxy) that need one given. */
export async function freePort (): Promise<number> {
  const probe = createServer()
  probe.listen(0, '127.0.0.1')
  await once(probe, 'listening')
  const address = probe.address()
  probe.close()
  await once(probe, 'close')
  if (typeof address !== 'object' || address === null) throw new Error('no port')
  return address.port
}
