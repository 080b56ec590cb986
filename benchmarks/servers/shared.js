// What every benchmark server does, whatever its framework: one tool, `add`, whose arguments are
// validated against the same schema ({ a: number, b: number }, both required) before it answers
// `{ content: [{ type: 'text', text: String(a + b) }] }`.
import { Type } from '@sinclair/typebox'

export const AddSchema = Type.Object({ a: Type.Number(), b: Type.Number() })
export const ADD_DESCRIPTION = 'Adds two numbers'

export function addResult ({ a, b }) {
  return { content: [{ type: 'text', text: String(a + b) }] }
}

export const SERVER_INFO = { name: 'bench', version: '1.0.0' }

/**
 * Our MCPServer from dist/ (or the build BENCH_OURS_DIST names, for A/B runs); undefined, after
 * telling the runner why, when it does not load.
 */
export async function loadOurs (unavailable) {
  try {
    // With an OpenTelemetry SDK listening (see otel-sdk.js); without, the instrumentation is idle.
    if (process.env.BENCH_OTEL === '1') (await import('./otel-sdk.js')).installBenchSdk()
    return (await import(process.env.BENCH_OURS_DIST ?? '../../dist/index.js')).MCPServer
  } catch (error) {
    unavailable(`dist/ does not load (${error.message}); run npm run build`)
    return undefined
  }
}
