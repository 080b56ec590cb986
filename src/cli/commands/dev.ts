import { spawn, type ChildProcess } from 'node:child_process'
import { connect as connectTcp } from 'node:net'
import { dirname, isAbsolute, relative } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { HTTP_PORT_ENV } from '../../server.js'
import { parseLine, targetOf, UsageError } from '../args.js'
import { EXIT_OK, type Command, type CommandContext } from '../context.js'
import { StdioProxy } from '../dev-proxy.js'
import { watchTree } from '../watch.js'

const FLAGS = {
  http: { type: 'boolean', default: false },
  port: { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false }
} as const

/** Saves come in bursts (an editor writes, renames, touches): one restart per burst. */
const SETTLE_MS = 100
/** How long a server has to listen after it started, over HTTP. */
const LISTEN_TIMEOUT_MS = 20_000

export const dev: Command = {
  help: `Usage: fastify-mcp-server dev <file> [--http [--port N]]

Runs a server file (node <file>) and restarts it whenever a file under its folder changes
(node_modules, .git and hidden folders aside). A file that fails (a syntax error) is reported,
and the next save starts it again. Node flags for the server go in NODE_OPTIONS (a TypeScript
file on Node 20: NODE_OPTIONS='--import tsx').

On stdio (the default) this command is what the host launches: it forwards the host's messages
to the server and back, keeps a 2025-11-25 session alive across restarts (replayed to the new
process; the host is told the lists changed), and answers a request cut by a restart with an
error. The host configuration line to use is printed on stderr.

With --http, a server whose MCPServer names no transport is served over HTTP on 127.0.0.1:
the command sets ${HTTP_PORT_ENV} for it (MCPServer reads it only when its options name no
transport). The URL stays the same across restarts.

Options:
  --http                  serve over HTTP instead of stdio
  --port <N>              the HTTP port (default 8080)

Examples:
  fastify-mcp-server dev server.js --http --port 3000
  { "command": "npx", "args": ["fastify-mcp-server", "dev", "/abs/path/server.js"] }   (host config)`,
  run: async (args, context) => {
    const { values, positionals, command } = parseLine(args, FLAGS)
    if (values.help) {
      context.output.out(dev.help)
      return EXIT_OK
    }
    if (command !== undefined || positionals.length !== 1) throw new UsageError('dev takes one server file')
    const target = targetOf(positionals[0], undefined)
    if (target.kind !== 'file') throw new UsageError('dev runs a server file (a URL has nothing to restart)')
    const port = values.http ? portOf(values.port) : undefined
    if (!values.http && values.port !== undefined) throw new UsageError('--port goes with --http')
    await new DevRunner(target.path, port, context).run()
    return EXIT_OK
  }
}

function portOf (value: string | undefined): number {
  const port = Number(value ?? '8080')
  // Not 0: the URL must survive restarts.
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new UsageError(`--port must be 1 to 65535, got "${value ?? ''}"`)
  return port
}

/** One `dev` session: the watcher, the current server process, the stdio proxy when there is no --http. */
class DevRunner {
  private readonly file: string
  private readonly port: number | undefined
  private readonly context: CommandContext
  private readonly proxy: StdioProxy | undefined
  private child: ChildProcess | undefined
  private restarts = 0
  private queue: Promise<void> = Promise.resolve()
  private timer: NodeJS.Timeout | undefined
  private changed = ''
  /** Set once dev is ending: a server that goes now (Ctrl-C reached it too) is no news. */
  private ending = false

  constructor (file: string, port: number | undefined, context: CommandContext) {
    this.file = file
    this.port = port
    this.context = context
    this.proxy = port === undefined ? new StdioProxy(context.stdin, context.stdout) : undefined
  }

  async run (): Promise<void> {
    const root = dirname(this.file)
    const say = this.say
    if (this.port === undefined) {
      say(`serving ${this.name()} on stdio; restarts on changes under ${root}`)
      say(`host config: ${JSON.stringify({ command: 'npx', args: ['fastify-mcp-server', 'dev', this.file] })}`)
    } else {
      say(`serving ${this.name()} at http://127.0.0.1:${this.port}/mcp (HTTP+SSE: /sse); restarts on changes under ${root}`)
    }
    const watcher = watchTree(root, (path) => { this.schedule(path) })
    this.queue = this.start(false)
    // Until Ctrl-C, or (stdio) until the host closes our input.
    await new Promise<void>((resolve) => {
      this.context.interrupted.addEventListener('abort', () => { resolve() }, { once: true })
      if (this.proxy !== undefined) this.context.stdin.once('end', () => { resolve() })
    })
    this.ending = true
    watcher.close()
    clearTimeout(this.timer)
    await this.queue
    await this.stop()
  }

  private readonly say = (text: string): void => {
    this.context.output.err(this.context.output.styleErr('cyan', `dev: ${text}`))
  }

  private name (): string {
    return shortPath(this.context.cwd, this.file)
  }

  private schedule (path: string): void {
    if (this.ending) return
    this.changed = path
    clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.queue = this.queue.then(async () => { await this.restart() })
    }, SETTLE_MS)
  }

  private async restart (): Promise<void> {
    this.say(`${shortPath(this.context.cwd, this.changed)} changed: restarting`)
    const old = this.child
    this.child = undefined
    this.proxy?.detach(true, 'restarted')
    if (old !== undefined) {
      // Over HTTP the new process needs the port the old one holds; on stdio they may overlap.
      const stopped = stopProcess(old)
      if (this.proxy === undefined) await stopped
    }
    await this.start(true)
  }

  private async start (restarted: boolean): Promise<void> {
    const env = { ...this.context.env }
    if (this.port !== undefined) env[HTTP_PORT_ENV] = String(this.port)
    const child = spawn(process.execPath, [this.file], {
      stdio: [this.proxy === undefined ? 'ignore' : 'pipe', this.proxy === undefined ? 'inherit' : 'pipe', 'inherit'],
      env
    })
    this.child = child
    const number = ++this.restarts
    child.once('exit', (code, signal) => {
      // Only the current process's end is news: the ones we stop are expected to go.
      if (this.child !== child || this.ending) return
      this.child = undefined
      const how = code === null ? `was killed by ${String(signal)}` : `exited with code ${code}`
      this.proxy?.detach(false, how)
      this.say(`${this.name()} ${how}: fix it and save; it starts again on the next change`)
    })
    child.once('error', (error) => { this.say(`cannot start node: ${error.message}`) })
    if (this.proxy !== undefined && child.stdin !== null && child.stdout !== null) {
      this.proxy.attach(child.stdin, child.stdout, restarted)
      if (restarted) this.say(`restarted (#${number - 1})`)
      return
    }
    if (this.port !== undefined && await listening(this.port, child)) {
      this.say(`${restarted ? `restarted (#${number - 1}): ` : ''}ready at http://127.0.0.1:${this.port}/mcp`)
    }
  }

  private async stop (): Promise<void> {
    const child = this.child
    this.child = undefined
    if (child !== undefined) await stopProcess(child)
  }
}

/** A path relative to the current folder when it is inside it, absolute otherwise. */
function shortPath (cwd: string, path: string): string {
  const near = relative(cwd, path)
  return near === '' || near.startsWith('..') || isAbsolute(near) ? path : near
}

/** True once something accepts connections on the port; false if the process ends (or takes too long) first. */
async function listening (port: number, child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + LISTEN_TIMEOUT_MS
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) return false
    const open = await new Promise<boolean>((resolve) => {
      const socket = connectTcp({ port, host: '127.0.0.1' })
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => { resolve(false) })
    })
    if (open) return child.exitCode === null && child.signalCode === null
    await sleep(100, undefined, { ref: false })
  }
  return false
}

/** SIGTERM, then SIGKILL after 3 s; resolves once the process is gone. */
async function stopProcess (child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise<void>((resolve) => { child.once('exit', () => { resolve() }) })
  child.kill('SIGTERM')
  const timer = setTimeout(() => { child.kill('SIGKILL') }, 3000)
  await gone
  clearTimeout(timer)
}
