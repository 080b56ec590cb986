import { ErrorCode, McpError } from '../jsonrpc.js'
import type { MethodEnv, MethodHandler } from '../methods/types.js'
import type { Session } from '../session.js'
import { ownerKey } from './owner.js'
import { detailedTask, TASKS_EXTENSION } from './types.js'

/** The only revision the extension is defined for (SEP-2663: not under 2025-11-25). */
const MODERN_VERSION = '2026-07-28'
const MISSING_REQUIRED_CLIENT_CAPABILITY = -32021

/** Whether this request is served under a revision that has the Tasks extension. */
export function isModernRequest (session: Session): boolean {
  return session.protocolVersion === MODERN_VERSION
}

/** Whether the request's client declared `io.modelcontextprotocol/tasks` (per request, in `_meta`). */
export function clientDeclaresTasks (session: Session): boolean {
  if (!isModernRequest(session)) return false
  const extensions = session.clientCapabilities.extensions
  return typeof extensions === 'object' && extensions !== null && (extensions as Record<string, unknown>)[TASKS_EXTENSION] !== undefined
}

/** -32021 naming the extension, as SEP-2663 shows it. */
export function missingTasksCapability (what: string): McpError {
  return new McpError(MISSING_REQUIRED_CLIENT_CAPABILITY, `Missing required client capability: ${what} needs the ${TASKS_EXTENSION} extension`, {
    requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } }
  })
}

/**
 * The gate of the three task methods: unknown to clients of revisions without
 * the extension (they never saw it offered), -32021 for a 2026 request whose
 * client did not declare it.
 */
function guard (method: string, session: Session): void {
  if (!isModernRequest(session)) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
  if (!clientDeclaresTasks(session)) throw missingTasksCapability(method)
}

export const getTask: MethodHandler = async (params, { session, tasks }: MethodEnv) => {
  guard('tasks/get', session)
  const task = await tasks.get(params.taskId, ownerKey(session.principal))
  return { ...detailedTask(task), resultType: 'complete' }
}

export const updateTask: MethodHandler = async (params, { session, tasks }: MethodEnv) => {
  guard('tasks/update', session)
  await tasks.update(params.taskId, ownerKey(session.principal), params.inputResponses)
  return { resultType: 'complete' }
}

export const cancelTask: MethodHandler = async (params, { session, tasks }: MethodEnv) => {
  guard('tasks/cancel', session)
  await tasks.cancel(params.taskId, ownerKey(session.principal))
  return { resultType: 'complete' }
}
