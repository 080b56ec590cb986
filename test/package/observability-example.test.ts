// examples/observability-server.js as a user runs it: traces reach an OTLP endpoint (a local
// sink here), the metrics endpoint answers Prometheus' scrape, for calls from the SDK client.
import { spawn } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import { ensureBuilt } from '../helpers/built.js'
import { connectStreamable } from '../helpers/clients.js'

const example = fileURLToPath(new URL('../../examples/observability-server.js', import.meta.url))
// It imports dist/: refused when older than src/, rather than testing the last build.
ensureBuilt()

t.test('the observability example exports traces over OTLP and serves Prometheus metrics', async (t) => {
  const received: string[] = []
  const sink = createServer((request, response) => {
    let body = ''
    request.setEncoding('utf8')
    request.on('data', (chunk: string) => { body += chunk })
    request.on('end', () => {
      received.push(`${request.url ?? ''} ${body}`)
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}')
    })
  })
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve))
  t.teardown(() => { sink.close() })
  const { port: sinkPort } = sink.address() as AddressInfo

  const child = spawn(process.execPath, [example, '--port', '0', '--metrics-port', '0'], {
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${sinkPort}` },
    stdio: ['ignore', 'ignore', 'pipe']
  })
  t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  let stderr = ''
  const urls = await new Promise<{ mcp: string, metrics: string }>((resolve, reject) => {
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (chunk: string) => {
      stderr += chunk
      const mcp = /MCP: (http:\/\/\S+\/mcp)/.exec(stderr)?.[1]
      const metrics = /metrics: (http:\/\/\S+\/metrics)/.exec(stderr)?.[1]
      if (mcp !== undefined && metrics !== undefined) resolve({ mcp, metrics })
    })
    child.once('exit', (code) => { reject(new Error(`the example exited (${String(code)}): ${stderr}`)) })
  })

  const { client } = await connectStreamable(urls.mcp)
  const answer = await client.callTool({ name: 'forecast', arguments: { city: 'Accra' } })
  t.same(answer.content, [{ type: 'text', text: 'Sunny in Accra' }])
  await client.close()

  const scrape = await (await fetch(urls.metrics)).text()
  t.match(scrape, /mcp_server_operation_duration(_seconds)?_bucket\{[^}]*gen_ai_tool_name="forecast"[^}]*le="0\.01"\}/)

  // Stopping flushes the batched spans to the OTLP endpoint.
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
  const traces = received.filter((entry) => entry.startsWith('/v1/traces'))
  t.ok(traces.length > 0, 'spans were exported to /v1/traces')
  t.match(traces.join('\n'), /tools\/call forecast/)
  t.match(traces.join('\n'), /lookup forecast/)
  t.match(traces.join('\n'), /app\.city/)
})
