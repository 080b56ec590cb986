import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { MethodEnv, MethodHandler } from '../methods/types.js'
import { ModernErrorCode } from '../modern/errors.js'
import type { Session } from '../session.js'
import { ownerKey } from './owner.js'
import { detailedTask, TASKS_EXTENSION } from './types.js'

/** Whether this request is served under a revision that has the Tasks extension (2026-07-28, not 2025-11-25: SEP-2663). */
export function isModernRequest (session: Session): boolean {
  return session.generation === 'modern'
}

/** Whether the request's client declared `io.modelcontextprotocol/tasks` (per request, in `_meta`). */
export function clientDeclaresTasks (session: Session): boolean {
  if (!isModernRequest(session)) return false
  const extensions = session.clientCapabilities.extensions
  return typeof extensions === 'object' && extensions !== null && (extensions as Record<string, unknown>)[TASKS_EXTENSION] !== undefined
}

/** -32021 naming the extension, as SEP-2663 shows it. */
export function missingTasksCapability (what: string): McpError {
  return new McpError(ModernErrorCode.MissingRequiredClientCapability, `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } }
  })
}

/**
 * The gate of the three task methods, which only 2026-07-28 requests reach
 * (`methods/table.ts`): -32021 unless the request's client declared the extension.
 */
function guard (method: string, session: Session): void {
  if (!clientDeclaresTasks(session)) throw missingTasksCapability(method)
}

/**
 * A task is used with the credential of each request, as its first call was: the tool it runs must
 * still be this caller's to use. Hidden from it, the task is not found; missing scopes are -32005.
 */
async function reachTask (taskId: unknown, verb: string, { ctx, tasks, registry, access }: MethodEnv): Promise<void> {
  if (!access.gated) return
  const task = await tasks.peek(taskId, ownerKey(ctx.auth))
  // Not found: the method itself answers that, in its own words.
  if (task?.tool === undefined) return
  const tool = registry.tools.get(task.tool)
  const reach = tool === undefined ? true : access.reach(tool)
  if (reach !== true && !await reach) throw new McpError(ErrorCode.InvalidParams, `Failed to ${verb} task: Task not found`)
}

export const getTask: MethodHandler = async (params, env: MethodEnv) => {
  const { session, ctx, tasks } = env
  guard('tasks/get', session)
  await reachTask(params.taskId, 'retrieve', env)
  const task = await tasks.get(params.taskId, ownerKey(ctx.auth))
  return { ...detailedTask(task), resultType: 'complete' }
}

export const updateTask: MethodHandler = async (params, env: MethodEnv) => {
  const { session, ctx, tasks } = env
  guard('tasks/update', session)
  await reachTask(params.taskId, 'update', env)
  await tasks.update(params.taskId, ownerKey(ctx.auth), params.inputResponses)
  return { resultType: 'complete' }
}

export const cancelTask: MethodHandler = async (params, env: MethodEnv) => {
  const { session, ctx, tasks } = env
  guard('tasks/cancel', session)
  await reachTask(params.taskId, 'cancel', env)
  await tasks.cancel(params.taskId, ownerKey(ctx.auth))
  return { resultType: 'complete' }
}
