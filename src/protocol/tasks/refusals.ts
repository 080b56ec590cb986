import type { TaskLimitError } from '../../errors.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { limitError } from '../limits.js'
import type { TaskLimitName } from './types.js'

const MAX_TASK_ID_LENGTH = 128

/** A task id as clients may send it: a non-empty string of at most 128 characters. */
export function isTaskId (taskId: unknown): taskId is string {
  return typeof taskId === 'string' && taskId !== '' && taskId.length <= MAX_TASK_ID_LENGTH
}

/** `taskId` if {@link isTaskId}, else -32602. */
export function validTaskId (taskId: unknown): string {
  if (isTaskId(taskId)) return taskId
  throw new McpError(ErrorCode.InvalidParams, `params.taskId must be a non-empty string of at most ${MAX_TASK_ID_LENGTH} characters`)
}

/** A store's refusal as the client reads it (-32603, `data.limit` naming the bound), counted through `onLimit`. */
export function storeRefusal (onLimit: ((limit: string) => void) | undefined, error: ReturnType<typeof TaskLimitError>): McpError {
  const { limit, max } = error as { limit?: TaskLimitName, max?: number }
  if (limit === undefined) return new McpError(ErrorCode.InternalError, error.message)
  onLimit?.(limit)
  return limitError(ErrorCode.InternalError, error.message, limit, max ?? 0)
}
