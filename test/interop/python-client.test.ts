// The official Python MCP client (PyPI `mcp` 2.3.0), a client nobody here wrote, over Streamable
// HTTP. It ends its session with a bodyless DELETE that still carries
// `Content-Type: application/json`; the server must end the session there and then, not leave
// it to the idle timeout. The venv comes from scripts/python-client-env.sh (run by .ci/run).
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import t from 'tap'
import { exchange } from '../helpers/raw-socket.js'
import { listeningCatalogApp } from '../helpers/serve.js'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../..', import.meta.url))

// Creating the venv the first time installs a dozen packages: minutes, not seconds.
t.setTimeout(600_000)

async function python (): Promise<string> {
  const { stdout } = await run('bash', ['scripts/python-client-env.sh'], { cwd: root, timeout: 540_000 })
  return stdout.trim()
}

t.test('the Python SDK ends its session with DELETE, and the server ends it', async (t) => {
  const interpreter = await python()
  const seen: Array<{ method: string, status: number, contentType: string | undefined }> = []
  const { app, base } = await listeningCatalogApp(t, {}, {
    before: (app) => {
      app.addHook('onResponse', async (request, reply) => {
        seen.push({ method: request.method, status: reply.statusCode, contentType: request.headers['content-type'] })
      })
    }
  })
  const { stdout } = await run(interpreter, [fileURLToPath(new URL('../fixtures/python_client.py', import.meta.url)), `${base}/mcp`],
    { timeout: 60_000 })
  t.same(JSON.parse(stdout), { protocolVersion: '2025-11-25', text: 'from python' }, 'initialize and a tool call worked')
  const deletes = seen.filter((r) => r.method === 'DELETE')
  t.equal(deletes.length, 1, 'the client sent one DELETE')
  t.same(deletes[0], { method: 'DELETE', status: 204, contentType: 'application/json' }, 'with a JSON Content-Type and no body, answered 204')
  t.equal(app.mcp.sessionCount, 0, 'the session has ended')
})

t.test('DELETE and GET never fail on a body they do not read; POST stays strict', async (t) => {
  const { app, base } = await listeningCatalogApp(t)
  const port = Number(new URL(base).port)
  const head = (method: string, extra: string): string =>
    `${method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\n${extra}Connection: close\r\n\r\n`
  const init = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}'
  const open = async (): Promise<string> => {
    const answer = await exchange(port, head('POST', `Content-Type: application/json\r\nContent-Length: ${init.length}\r\n`) + init)
    t.equal(answer.status, 200)
    return answer.headers['mcp-session-id'] as string
  }

  // [what, header lines, body]
  const bodies: Array<[string, string, string]> = [
    ['JSON type, no body', 'Content-Type: application/json\r\n', ''],
    ['JSON type, Content-Length: 0', 'Content-Type: application/json\r\nContent-Length: 0\r\n', ''],
    ['JSON type, a body that is not JSON', 'Content-Type: application/json\r\nContent-Length: 5\r\n', '{oops'],
    ['another type with a body', 'Content-Type: text/plain\r\nContent-Length: 5\r\n', 'hello'],
    ['a chunked body without a type', 'Transfer-Encoding: chunked\r\n', '5\r\nhello\r\n0\r\n\r\n']
  ]
  for (const [what, headers, body] of bodies) {
    const id = await open()
    const answer = await exchange(port, head('DELETE', `Mcp-Session-Id: ${id}\r\n${headers}`) + body)
    t.equal(answer.status, 204, `DELETE, ${what}`)
  }
  t.equal(app.mcp.sessionCount, 0, 'every DELETE ended its session')

  const id = await open()
  const get = await exchange(port, head('GET', `Mcp-Session-Id: ${id}\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{oops`).replace(/Accept: [^\r]*/, 'Accept: text/event-stream'))
  t.equal(get.status, 200, 'GET with a junk JSON body opens its stream')
  t.match(get.headers['content-type'], /^text\/event-stream/)

  const post = await exchange(port, head('POST', `Mcp-Session-Id: ${id}\r\nContent-Type: application/json\r\n`))
  t.equal(post.status, 400, 'a bodyless POST is still a parse error')
  t.equal(JSON.parse(post.body).error.code, -32700)
})
