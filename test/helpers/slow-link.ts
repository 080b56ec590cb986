// A slow network link in front of a TCP server: what a client writes reaches the server `delayMs`
// later, in order; what the server answers comes back at once. One instance behind it on its way
// to Redis is an instance on a congested link (another zone, a retransmitted packet): its writes
// reach Redis after what other instances wrote meanwhile.
import { connect, createServer, type Socket } from 'node:net'
import { once } from 'node:events'
import type { Test } from 'tap'

export interface SlowLink {
  /** The port to connect to instead of the server's. */
  readonly port: number
}

/** Listens on a free port of 127.0.0.1 and relays every connection to `target`, closed at teardown. */
export async function slowLink (t: Test, target: number, delayMs: number): Promise<SlowLink> {
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: target })
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on('close', () => { sockets.delete(socket) })
      // Either end gone: so is the link, as a TCP connection through a broken path.
      socket.on('error', () => { client.destroy(); upstream.destroy() })
      socket.on('close', () => { client.destroy(); upstream.destroy() })
    }
    // Timers of one duration fire in the order they were set: the chunks arrive in order. Each ends
    // by itself (unref'd: nothing to clear, a chunk left at teardown goes to a destroyed socket).
    client.on('data', (chunk) => { setTimeout(() => { if (!upstream.destroyed) upstream.write(chunk) }, delayMs).unref() })
    upstream.on('data', (chunk) => { if (!client.destroyed) client.write(chunk) })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.teardown(async () => {
    for (const socket of sockets) socket.destroy()
    await new Promise((resolve) => server.close(resolve))
  })
  return { port: (server.address() as { port: number }).port }
}
