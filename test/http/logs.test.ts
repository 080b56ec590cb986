// Credentials never reach a log line of MCPServer, whatever the route (issue 10, defect 10):
// with logLevel 'info' and `queryParam`, `GET /sse/?key=<valid key>` (a 404) used to log the key
// twice (the request line and "Route ... not found") and echo it in the 404 body.
import { spawn } from 'node:child_process'
import t from 'tap'
import { fixture } from '../helpers/clients.js'
import { exchange } from '../helpers/raw-socket.js'

const KEY = 'key-0123456789abcdef-log-test-secret'

t.test('no credential in any log line or 404 answer of MCPServer', async (t) => {
  const child = spawn(process.execPath, [...process.execArgv, fixture('http-log-server.ts')], {
    env: { ...process.env, API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe']
  })
  t.teardown(() => { child.kill('SIGKILL') })
  let stdout = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  let stderr = ''
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk
      const ready = /READY (\d+)/.exec(stderr)
      if (ready !== null) resolve(Number(ready[1]))
    })
    child.once('exit', () => { reject(new Error(`the server exited: ${stderr}`)) })
  })
  const get = (target: string, headers = ''): string => `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}Connection: close\r\n\r\n`
  const requests = [
    get(`/sse/?key=${KEY}`), // the case: a 404
    get(`/nowhere?a=1&key=${KEY}&api_key=${KEY}`),
    get(`/sse/${KEY}`), // a key in the path of an unknown route
    get(`/%E0%A4%A?key=${KEY}`), // a URL Fastify cannot decode
    get('/nowhere', `Authorization: Bearer ${KEY}\r\nX-API-Key: ${KEY}\r\n`),
    get(`/messages?sessionId=none&key=${KEY}`),
    `POST /messages?sessionId=none&key=${KEY} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`
  ]
  for (const request of requests) {
    const answer = await exchange(port, request)
    t.notOk(answer.text.includes(KEY), `the answer to ${request.split(' ')[1]?.replaceAll(KEY, '<key>') ?? ''} does not echo the key`)
  }
  const sse = await exchange(port, get(`/sse?key=${KEY}`, 'Accept: text/event-stream\r\n'))
  t.equal(sse.status, 200, 'the key in the query string does authenticate')

  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  const lines = stdout.split('\n').filter((line) => line !== '')
  t.ok(lines.filter((line) => line.includes('incoming request')).length >= requests.length, 'requests were logged at info')
  t.match(stdout, /\[REDACTED\]/, 'redacted where the key was')
  for (const line of lines) {
    if (line.includes(KEY)) t.fail(`a log line shows the key: ${line.replaceAll(KEY, '<key>')}`)
  }
  t.notOk(stdout.includes(KEY), 'the key is in no log line')
})
