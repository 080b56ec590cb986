// The command line's parts on their own, where a whole run would not reach every case: argument
// parsing, schema and content rendering, the hosts' file places per platform, the folder watcher,
// and the stdio proxy of dev across a restart.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { argumentsOf, headersOf, parseLine, protocolOf, secondsOf, targetOf, UsageError } from '../../src/cli/args.js'
import { StdioProxy } from '../../src/cli/dev-proxy.js'
import { HOSTS } from '../../src/cli/hosts.js'
import { columns, contentLines, parameterLines, typeOf } from '../../src/cli/render.js'
import { watchTree } from '../../src/cli/watch.js'

t.test('arguments, headers, protocol, seconds, targets', async (t) => {
  t.same(argumentsOf(['n=1', 'on=true', 'tags=["a"]', 's="1"', 'text=hello world', 'eq=a=b', 'nil=null'], '{"n":0,"keep":1}'),
    { n: 1, keep: 1, on: true, tags: ['a'], s: '1', text: 'hello world', eq: 'a=b', nil: null })
  t.throws(() => argumentsOf([], '{'), /--json is not valid JSON/)
  t.throws(() => argumentsOf(['=1'], undefined), /expected key=value, got "=1"/)
  t.same(headersOf(['X-API-Key: abc', 'Authorization:Bearer  x y ']), { 'x-api-key': 'abc', authorization: 'Bearer  x y' })
  t.throws(() => headersOf(['no colon']), /--header expects "Name: value"/)
  t.throws(() => headersOf(['bad name: x']), UsageError)
  t.equal(protocolOf(undefined), 'auto')
  t.equal(protocolOf('auto'), 'auto')
  t.equal(protocolOf('2025-11-25'), '2025-11-25')
  t.throws(() => protocolOf('2024-11-05'), /--protocol must be 2026-07-28, 2025-11-25 or auto/)
  t.equal(secondsOf(undefined, '--timeout', 7), 7)
  t.equal(secondsOf('1.5', '--timeout', 7), 1500)
  t.throws(() => secondsOf('-1', '--timeout', 7), /--timeout must be a number of seconds/)
  t.same(targetOf(undefined, ['python', 'server.py']), { kind: 'command', command: 'python', args: ['server.py'] })
  t.match(targetOf('HTTPS://example.com/mcp', undefined), { kind: 'url' })
  t.throws(() => targetOf('http://exa mple.com', undefined), /not a valid URL/)
  t.throws(() => targetOf(undefined, undefined), /missing target/)
  t.throws(() => targetOf(tmpdir(), undefined), /no such file/, 'a folder is not a server file')
  t.throws(() => parseLine(['x', '--'], {}), /nothing after "--"/)
})

t.test('schemas and content as text', async (t) => {
  t.equal(typeOf({ enum: ['a', 1] }), '"a" | 1')
  t.equal(typeOf({ const: 'x' }), '"x"')
  t.equal(typeOf({ anyOf: [{ type: 'string' }, { type: 'null' }] }), 'string | null')
  t.equal(typeOf({ oneOf: [{ type: 'integer' }] }), 'integer')
  t.equal(typeOf({ type: ['string', 'number'] }), 'string | number')
  t.equal(typeOf({ type: 'array', items: { type: 'string' } }), 'array of string')
  t.equal(typeOf({}), 'any')
  t.equal(typeOf(true), 'any')
  t.same(parameterLines({ type: 'object' }), [])
  t.same(parameterLines({ properties: { n: { type: 'integer', default: 3 }, raw: true } }), ['n: integer (default 3)', 'raw: any'])
  t.same(contentLines({ type: 'audio', data: Buffer.from('abcd').toString('base64'), mimeType: 'audio/wav' }), ['[audio audio/wav, 4 bytes]'])
  t.same(contentLines({ type: 'resource_link', uri: 'file:///a' }), ['[link file:///a]'])
  t.same(contentLines({ type: 'resource' }), ['[resource undefined, 0 bytes]'])
  t.same(contentLines({ type: 'custom', x: 1 }), ['{"type":"custom","x":1}'])
  t.same(contentLines('odd'), ['"odd"'])
  t.same(columns([['a', 'long one', 'x'], ['bbb', 's', 'y']]), ['  a    long one  x', '  bbb  s         y'])
})

t.test('where each host keeps its servers, per platform', async (t) => {
  const place = { home: '/home/u', cwd: '/work/p', env: {} }
  t.equal(HOSTS['claude-desktop'].file('user', { ...place, platform: 'linux' }), '/home/u/.config/Claude/claude_desktop_config.json')
  t.equal(HOSTS['claude-desktop'].file('user', { ...place, platform: 'linux', env: { XDG_CONFIG_HOME: '/xdg' } }), '/xdg/Claude/claude_desktop_config.json')
  t.equal(HOSTS['claude-desktop'].file('user', { ...place, platform: 'darwin' }), '/home/u/Library/Application Support/Claude/claude_desktop_config.json')
  t.equal(HOSTS['claude-desktop'].file('user', { ...place, platform: 'win32', env: { APPDATA: '/appdata' } }), join('/appdata', 'Claude', 'claude_desktop_config.json'))
  t.equal(HOSTS['claude-desktop'].file('user', { ...place, platform: 'win32' }), join('/home/u', 'AppData', 'Roaming', 'Claude', 'claude_desktop_config.json'))
  t.equal(HOSTS.vscode.file('user', { ...place, platform: 'darwin' }), '/home/u/Library/Application Support/Code/User/mcp.json')
  t.equal(HOSTS.vscode.file('project', { ...place, platform: 'linux' }), '/work/p/.vscode/mcp.json')
  t.equal(HOSTS['claude-code'].file('project', { ...place, platform: 'linux' }), '/work/p/.mcp.json')
  t.equal(HOSTS.cursor.file('user', { ...place, platform: 'linux' }), '/home/u/.cursor/mcp.json')
  const http = { kind: 'http' as const, url: 'https://x/mcp', headers: { authorization: 'Bearer t' } }
  t.same(HOSTS.cursor.entry(http), { url: 'https://x/mcp', headers: { authorization: 'Bearer t' } })
  t.same(HOSTS.vscode.entry({ ...http, headers: {} }), { type: 'http', url: 'https://x/mcp' })
  t.equal(HOSTS['claude-code'].command?.('x', http, 'user'), "claude mcp add --scope user --transport http x https://x/mcp --header 'authorization: Bearer t'")
})

t.test('the watcher: files in new folders, not node_modules or editors\' temporary files', async (t) => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'mcp-watch-')))
  t.teardown(() => { rmSync(root, { recursive: true, force: true }) })
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true })
  mkdirSync(join(root, 'src'))
  const seen: string[] = []
  const watcher = watchTree(root, (path) => { seen.push(path) })
  t.teardown(() => { watcher.close() })
  const until = async (path: string): Promise<void> => {
    for (const deadline = Date.now() + 5000; !seen.includes(path); await sleep(20)) {
      if (Date.now() > deadline) throw new Error(`${path} not seen; seen: ${seen.join(', ')}`)
    }
  }
  writeFileSync(join(root, 'src', 'a.js'), '1')
  await until(join(root, 'src', 'a.js'))
  mkdirSync(join(root, 'src', 'new'))
  await until(join(root, 'src', 'new'))
  writeFileSync(join(root, 'src', 'new', 'b.js'), '2')
  await until(join(root, 'src', 'new', 'b.js'))
  writeFileSync(join(root, 'node_modules', 'dep', 'index.js'), '3')
  writeFileSync(join(root, 'src', '.a.js.swp'), '4')
  writeFileSync(join(root, 'src', 'a.js~'), '5')
  mkdirSync(join(root, 'src', 'node_modules'))
  writeFileSync(join(root, 'src', 'node_modules', 'c.js'), '6')
  rmSync(join(root, 'src', 'new'), { recursive: true })
  writeFileSync(join(root, 'last.js'), '7')
  await until(join(root, 'last.js'))
  t.notOk(seen.some((path) => path.includes('dep') || path.endsWith('.swp') || path.endsWith('~') || path.endsWith('c.js')), `ignored: ${seen.join(', ')}`)
})

t.test('the stdio proxy of dev: a 2025 session replayed to the next process, what the old one owed answered', async (t) => {
  const fromHost = new PassThrough()
  const toHost = new PassThrough()
  const hostLines: unknown[] = []
  let pending = ''
  toHost.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk
    const lines = pending.split('\n')
    pending = lines.pop() ?? ''
    for (const line of lines) hostLines.push(line.startsWith('{') ? JSON.parse(line) : line)
  })
  const proxy = new StdioProxy(fromHost, toHost)
  const server = (): { input: PassThrough, output: PassThrough, lines: () => unknown[] } => {
    const input = new PassThrough()
    const output = new PassThrough()
    const lines: unknown[] = []
    input.setEncoding('utf8').on('data', (chunk: string) => { for (const line of chunk.split('\n').filter(Boolean)) lines.push(line.startsWith('{') ? JSON.parse(line) : line) })
    return { input, output, lines: () => lines }
  }
  const host = (message: unknown): void => { fromHost.write(JSON.stringify(message) + '\n') }
  const tick = async (): Promise<void> => { await sleep(10) }

  host({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25' } })
  await tick()
  const first = server()
  proxy.attach(first.input, first.output, false)
  await tick()
  t.match(first.lines(), [{ id: 1, method: 'initialize' }], 'what waited for the first process reaches it')
  first.output.write('{"jsonrpc":"2.0","id":1,"result":{}}\n')
  host({ jsonrpc: '2.0', method: 'notifications/initialized' })
  host({ jsonrpc: '2.0', id: 2, method: 'logging/setLevel', params: { level: 'info' } })
  host({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'a://1' } })
  host({ jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'a://2' } })
  host({ jsonrpc: '2.0', id: 5, method: 'resources/unsubscribe', params: { uri: 'a://2' } })
  host({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'slow' } })
  fromHost.write('not json\n')
  await tick()
  first.output.write('server noise\n')
  for (const id of [2, 3, 4, 5]) first.output.write(`{"jsonrpc":"2.0","id":${id},"result":{}}\n`)
  await tick()
  t.equal(first.lines().at(-1), 'not json', 'a line that is not JSON goes to the server, which answers it')

  proxy.detach(true, 'restarted')
  const second = server()
  proxy.attach(second.input, second.output, true)
  await tick()
  t.match(second.lines(), [
    { method: 'initialize', id: 'fastify-mcp-server-dev-1' },
    { method: 'notifications/initialized' },
    { method: 'logging/setLevel', params: { level: 'info' } },
    { method: 'resources/subscribe', params: { uri: 'a://1' } }
  ], 'the session, replayed')
  t.equal(second.lines().length, 4)
  second.output.write('{"jsonrpc":"2.0","id":"fastify-mcp-server-dev-1","result":{}}\n')
  first.output.write('{"jsonrpc":"2.0","id":6,"result":{"late":true}}\n')
  await tick()
  t.match(hostLines, [
    { id: 1, result: {} },
    'server noise',
    { id: 2 }, { id: 3 }, { id: 4 }, { id: 5 },
    { id: 6, error: { code: -32603, message: /The server restarted before answering/ } },
    { method: 'notifications/tools/list_changed' },
    { method: 'notifications/prompts/list_changed' },
    { method: 'notifications/resources/list_changed' }
  ], 'the host heard: its answer, what the server printed, the cut request\'s error, the list changes')
  t.notOk(hostLines.some((line) => (line as { id?: unknown }).id === 'fastify-mcp-server-dev-1'), 'the replay\'s answer stays in dev')
  t.notOk(hostLines.some((line) => (line as { result?: { late?: boolean } }).result?.late === true), 'the old process is not heard any more')

  host({ jsonrpc: '2.0', id: 7, method: 'tools/list' })
  proxy.detach(true, 'restarted')
  host({ jsonrpc: '2.0', id: 8, method: 'tools/list' })
  await tick()
  proxy.detach(false, 'exited with code 1')
  host({ jsonrpc: '2.0', id: 9, method: 'tools/list' })
  host({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 9 } })
  await tick()
  t.match(hostLines.slice(-3), [
    { id: 7, error: { message: /restarted before answering/ } },
    { id: 8, error: { message: /exited with code 1: fix it and save a file to restart it/ } },
    { id: 9, error: { message: /The server is not running: it failed to start/ } }
  ], 'while no process runs, requests are answered at once')
})
