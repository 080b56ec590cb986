// What a catalog server is asked to serve, from its environment: the catalog size
// (BENCH_CATALOG: large, demo, one, hello; see catalog/catalog.js), or the catalog itself already
// written as JSON (BENCH_CATALOG_FILE: the cold-start runner gives one, so that a server starting
// cold pays for its framework, not for this benchmark's catalog generator), the transport
// (BENCH_TRANSPORT: http or stdio) and, for the cold-start runner, a fixed port (BENCH_PORT).
import { readFileSync } from 'node:fs'
import { catalogOf } from '../catalog/catalog.js'

export function catalogSettings () {
  const size = process.env.BENCH_CATALOG ?? 'large'
  const transport = process.env.BENCH_TRANSPORT ?? 'http'
  if (transport !== 'http' && transport !== 'stdio') throw new Error(`BENCH_TRANSPORT must be http or stdio, not ${transport}`)
  const file = process.env.BENCH_CATALOG_FILE
  const catalog = file === undefined || file === '' ? catalogOf(size) : JSON.parse(readFileSync(file, 'utf8'))
  return { size, transport, port: Number(process.env.BENCH_PORT ?? 0), catalog }
}
