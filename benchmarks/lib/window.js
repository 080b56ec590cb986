/**
 * The measured window of a call workload, the same for every client: the
 * server's profiler window, the server's CPU (read over IPC) and the client's,
 * and the wall time of `work` alone. `settle` runs after the clock stops but
 * inside the CPU window, so answers still in flight are paid for.
 */
export async function measureCalls (server, work, settle = async () => {}) {
  await server.windowStart()
  const before = await server.usage()
  const clientBefore = process.cpuUsage()
  const started = performance.now()
  const result = await work()
  const elapsed = (performance.now() - started) / 1000
  await settle()
  const client = process.cpuUsage(clientBefore)
  const after = await server.usage()
  await server.windowEnd('calls')
  const serverMicros = after.cpuMicros - before.cpuMicros
  const clientMicros = client.user + client.system
  return {
    result,
    /** Throughput and CPU per call for `calls` answered calls. */
    figures (calls) {
      return {
        calls,
        callsPerSec: calls / elapsed,
        cpuMicrosPerCall: serverMicros / calls,
        cpuUtil: serverMicros / 1e6 / elapsed,
        clientCpuMicrosPerCall: clientMicros / calls,
        clientCpuUtil: clientMicros / 1e6 / elapsed
      }
    }
  }
}
