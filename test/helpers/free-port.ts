import type { ChildProcess } from 'node:child_process'
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

/** Starts of a child on fresh ports before its failure is the test's. */
const STARTS = 3

/** Thrown by a `start` of {@link startOnFreePorts} whose child exited before it was ready. */
export class ExitedAtStart extends Error {}

/** Whether `child` has exited, with a code or by a signal. */
export function hasExited (child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null
}

/**
 * Runs `start` on `count` distinct ports free right now, for a child process that binds them. A
 * port free when {@link freePort} looked may be taken by the time the child binds it (by another
 * process's outgoing connection, or handed out twice); the child then exits at once, `start` throws
 * {@link ExitedAtStart}, and it runs again on new ports, up to 3 times. CI once lost a whole Redis
 * Cluster test to it ("timed out: redis-server answers", 20 s of pinging a server that had exited).
 */
export async function startOnFreePorts<T> (count: number, start: (ports: number[]) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const ports = new Set<number>()
    while (ports.size < count) ports.add(await freePort())
    try {
      return await start([...ports])
    } catch (error) {
      if (!(error instanceof ExitedAtStart) || attempt >= STARTS) throw error
    }
  }
}
