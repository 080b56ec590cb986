// Fixtures of the conformance suite's tasks-* scenarios (the io.modelcontextprotocol/tasks
// extension, SEP-2663), registered by conformance-server.js. Names and behaviour come from the
// scenario sources of @modelcontextprotocol/conformance 0.2.0-alpha.12.
import { McpError } from '../dist/index.js'

const text = (value) => ({ content: [{ type: 'text', text: value }] })

/** Resolves after `ms`, or rejects with the signal's reason when the task is cancelled first. */
function sleep (ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    function onAbort () {
      clearTimeout(timer)
      reject(signal.reason)
    }
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

const confirmSchema = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Go ahead?' } },
  required: ['confirm']
}

/** @param {import('../dist/index.js').MCPServer} server */
export function registerTaskFixtures (server) {
  server.tool({
    name: 'greet',
    description: 'Greets someone (never a task)',
    inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
  }, async ({ name }) => text(`Hello, ${name}!`))

  server.tool({
    name: 'slow_compute',
    description: 'Sleeps `seconds`, then answers; a task for clients that support tasks',
    inputSchema: { type: 'object', properties: { seconds: { type: 'number', minimum: 0 }, label: { type: 'string' } } },
    execution: { taskSupport: 'optional' }
  }, async ({ seconds = 0, label = 'compute' }, ctx) => {
    await sleep(seconds * 1000, ctx.signal)
    return text(`${label}: done after ${seconds}s`)
  })

  server.tool({
    name: 'failing_job',
    description: 'Runs only as a task and ends with a tool error after about a second',
    execution: { taskSupport: 'required' }
  }, async (_args, ctx) => {
    await sleep(1000, ctx.signal)
    return { content: [{ type: 'text', text: 'The job failed: simulated failure' }], isError: true }
  })

  server.tool({
    name: 'protocol_error_job',
    description: 'A task that fails with a JSON-RPC error',
    execution: { taskSupport: 'optional' }
  }, async () => {
    throw new McpError(-32603, 'Simulated internal failure')
  })

  server.tool({
    name: 'confirm_delete',
    description: 'Asks the user to confirm (elicitation), then answers',
    inputSchema: { type: 'object', properties: { filename: { type: 'string' } } },
    execution: { taskSupport: 'optional' }
  }, async ({ filename = 'file' }, ctx) => {
    const answer = await ctx.elicit({ mode: 'form', message: `Delete ${filename}?`, requestedSchema: confirmSchema })
    const confirmed = answer.action === 'accept' && answer.content?.confirm === true
    return text(confirmed ? `Deleted ${filename}` : `Kept ${filename}`)
  })

  server.tool({
    name: 'multi_input',
    description: 'Asks two questions at once (two elicitations), then answers',
    execution: { taskSupport: 'optional' }
  }, async (_args, ctx) => {
    const ask = (message) => ctx.elicit({
      mode: 'form',
      message,
      requestedSchema: { type: 'object', properties: { name: { type: 'string' }, confirm: { type: 'boolean' } } }
    })
    const [first, second] = await Promise.all([ask('First name?'), ask('Second name?')])
    return text(`Got ${first.content?.name ?? '?'} and ${second.content?.name ?? '?'}`)
  })

  // tasks-mrtr-composition: the name is asked in the call itself (input_required rounds), then the
  // work goes on as a task, whose result carries the answer.
  server.tool({
    name: 'test_tool_with_task',
    description: 'Asks for a name (multi-round-trip), then greets as a task',
    execution: { taskSupport: 'required', taskStart: 'handler' }
  }, async (_args, ctx) => {
    const answer = await ctx.elicit({
      mode: 'form',
      message: 'What is your name?',
      requestedSchema: { type: 'object', properties: { user_name: { type: 'string' } }, required: ['user_name'] }
    })
    const name = answer.content?.user_name ?? answer.content?.name ?? 'stranger'
    await ctx.startTask()
    await sleep(200, ctx.signal)
    return text(`Hello, ${name}!`)
  })
}
