import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { ToolResult } from '../definitions.js'
import { listPage } from '../authz/lists.js'
import { shapeDescriptor, supports } from '../../jsonrpc/versions.js'
import type { HandlerContext } from '../context.js'
import type { RegisteredTool } from '../registry.js'
import { clientDeclaresTasks, isModernRequest, missingTasksCapability } from '../tasks/methods.js'
import { ownerKey } from '../tasks/owner.js'
import { TaskContext, type TaskOrigin } from '../tasks/task-context.js'
import type { TaskManager } from '../tasks/manager.js'
import type { NewTask } from '../tasks/run.js'
import type { StoredTask } from '../tasks/types.js'
import type { RequestContext } from '../request-context.js'
import { isRetryLater } from '../retry-later.js'
import { TASKS_EXTENSION, taskFields } from '../tasks/types.js'
import { errorMessage, optionalObject, requireString, type MethodHandler } from './types.js'
import { isRecord } from '../../util/is-record.js'
import { shallowCopy } from '../../util/shallow-copy.js'
import type { ErrorLogger } from '../../util/logger.js'

export const listTools: MethodHandler = (params, env) => {
  const version = env.session.protocolVersion as string
  return listPage('tools', env.registry.tools.values(), params, env, (page, nextCursor) => {
    const tools = page.map((tool) => shapeDescriptor(tool.wire, version))
    return nextCursor === undefined ? { tools } : { tools, nextCursor }
  })
}

function toolError (text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * Argument problems and handler failures are tool results with `isError`, so
 * the model can read them and try again; an unknown tool is a protocol error.
 * A tool with task support called by a client that declared the Tasks
 * extension answers with a task handle and runs detached (SEP-2663).
 */
export const callTool: MethodHandler = async (params, { registry, ctx, caller, session, logger, tasks, access }) => {
  const name = requireString(params, 'name')
  const tool = registry.tools.get(name)
  // A tool hidden from this caller by its rule is answered exactly as one that does not exist.
  const reach = tool === undefined ? false : access.reach(tool)
  if (tool === undefined || (reach !== true && !await reach)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 128)}`)
  const asTask = tool.taskSupport !== 'forbidden' && clientDeclaresTasks(session)
  if (tool.taskSupport === 'required' && !asTask) {
    throw isModernRequest(session)
      ? missingTasksCapability(`tool ${name}`)
      : new McpError(ErrorCode.MethodNotFound, `Tool ${name} runs only as a task (the ${TASKS_EXTENSION} extension of protocol 2026-07-28)`)
  }
  const args = optionalObject(params, 'arguments') ?? {}
  const problem = tool.validateInput(args)
  if (problem !== undefined) return toolError(`Invalid arguments for tool ${name}: ${problem}`)
  const version = session.protocolVersion as string
  if (!asTask) return await runTool(name, tool, args, ctx, session.id, logger, version)

  const origin = { session: session.id, auth: ctx.auth, http: ctx.http?.detach(), requestId: ctx.requestId, protocolVersion: version, meta: ctx.meta, clientCapabilities: session.clientCapabilities }
  // The principal of this very request owns the task (on 2026-07-28 each request is authenticated on
  // its own); it counts against this caller's client, so that anonymous callers, who all own their
  // tasks as one owner, each have a quota of their own. Its work holds this request while it runs.
  const owner: NewTask = { owner: ownerKey(ctx.auth), client: caller.client, inputBytes: caller.bytes }
  if (tool.taskStart === 'handler') return await runUntilTask({ name, tool, args, ctx, tasks, owner, origin, logger, version })
  const task = await tasks.start(owner, async (run) => {
    return await runTool(name, tool, args, new TaskContext(run, origin), session.id, logger, version)
  }, name)
  return { ...taskFields(task), resultType: 'task' }
}

interface TaskCall {
  name: string
  tool: RegisteredTool
  args: Record<string, unknown>
  ctx: RequestContext
  tasks: TaskManager
  owner: NewTask
  origin: TaskOrigin
  logger: ErrorLogger
  version: string
}

/**
 * `execution.taskStart: 'handler'`: the handler runs inside the call, so its
 * asks are multi-round-trip rounds (an unanswered one ends the call with
 * `input_required`), until it calls `ctx.startTask()`. Then the task is
 * created, its work is the rest of this same run, and the call answers with
 * the task (never with the rounds' `requestState`: SEP-2663 keeps the two
 * apart). A run that ends before answers the call with its own result.
 */
async function runUntilTask ({ name, tool, args, ctx, tasks, owner, origin, logger, version }: TaskCall): Promise<Record<string, unknown>> {
  let created: StoredTask | undefined
  let announce = (): void => {}
  const escalated = new Promise<void>((resolve) => { announce = resolve })
  ctx.taskStarter = async () => {
    let taskCtx: TaskContext | undefined
    // The store creates the task before the work starts (an await at least), by when `run` is initialized.
    created = await tasks.start(owner, async (taskRun) => {
      taskCtx = new TaskContext(taskRun, origin)
      return await run
    }, name)
    announce()
    return taskCtx as TaskContext
  }
  const run = runTool(name, tool, args, ctx, origin.session, logger, version)
  const result = await Promise.race([run, escalated])
  if (created !== undefined) return { ...taskFields(created), resultType: 'task' }
  return result as Record<string, unknown>
}

async function runTool (name: string, tool: RegisteredTool, args: Record<string, unknown>, ctx: HandlerContext & { aborted: boolean }, session: string, logger: ErrorLogger, version: string): Promise<Record<string, unknown>> {
  let result: ToolResult
  try {
    result = await tool.handler(args, ctx)
  } catch (error) {
    // A task that could not be created (`ctx.startTask()` while Redis is away) fails the call, to be retried.
    if (error instanceof McpError || ctx.aborted || isRetryLater(error)) throw error
    logger.error({ err: error, tool: name, session }, 'tool handler failed')
    // The message is the tool's own words for the model; the stack stays in the server log.
    return toolError(`Tool ${name} failed: ${errorMessage(error)}`)
  }
  return finishToolResult(name, result, tool.validateOutput, version)
}

function finishToolResult (name: string, result: ToolResult, validateOutput: ((value: unknown) => string | undefined) | undefined, version: string): Record<string, unknown> {
  if (typeof result !== 'object' || result === null || (result.content === undefined && result.structuredContent === undefined)) {
    throw new McpError(ErrorCode.InternalError, `Tool ${name} returned neither content nor structuredContent`)
  }
  const shaped = shallowCopy(result)
  if (validateOutput !== undefined && result.isError !== true) {
    if (result.structuredContent === undefined) {
      throw new McpError(ErrorCode.InternalError, `Tool ${name} declares an outputSchema but returned no structuredContent`)
    }
    const problem = validateOutput(result.structuredContent)
    if (problem !== undefined) throw new McpError(ErrorCode.InternalError, `Tool ${name} returned invalid structuredContent: ${problem}`)
  }
  // Clients that ignore structuredContent still get the data as text, as the spec recommends.
  if (shaped.content === undefined) shaped.content = [{ type: 'text', text: JSON.stringify(result.structuredContent) }]
  if (!supports(version, 'structuredContent')) delete shaped.structuredContent
  else if (!supports(version, 'anyStructuredContent') && !isRecord(result.structuredContent)) delete shaped.structuredContent
  return shaped
}
