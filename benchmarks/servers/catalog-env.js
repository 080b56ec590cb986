// What a catalog server is asked to serve, from its environment: the catalog size
// (BENCH_CATALOG: large, demo, one, hello; see catalog/catalog.js), the transport
// (BENCH_TRANSPORT: http or stdio) and, for the cold-start runner, a fixed port (BENCH_PORT).
import { catalogOf } from '../catalog/catalog.js'

export function catalogSettings () {
  const size = process.env.BENCH_CATALOG ?? 'large'
  const transport = process.env.BENCH_TRANSPORT ?? 'http'
  if (transport !== 'http' && transport !== 'stdio') throw new Error(`BENCH_TRANSPORT must be http or stdio, not ${transport}`)
  return { size, transport, port: Number(process.env.BENCH_PORT ?? 0), catalog: catalogOf(size) }
}
