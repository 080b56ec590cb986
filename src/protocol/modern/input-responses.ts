import { isRecord } from '../../util/is-record.js'
/**
 * The shape checks of the answers a client sends in `inputResponses`
 * (ElicitResult, CreateMessageResult, ListRootsResult): enough that a
 * handler can rely on the fields it reads. Each returns what is wrong, or
 * undefined; extra fields are the client's business and pass.
 */

const ELICIT_ACTIONS = new Set(['accept', 'decline', 'cancel'])
const ROLES = new Set(['user', 'assistant'])

function checkElicitResult (result: Record<string, unknown>): string | undefined {
  if (typeof result.action !== 'string' || !ELICIT_ACTIONS.has(result.action)) return 'action must be "accept", "decline" or "cancel"'
  if (result.content !== undefined && !isRecord(result.content)) return 'content must be an object'
  return undefined
}

function checkCreateMessageResult (result: Record<string, unknown>): string | undefined {
  if (typeof result.role !== 'string' || !ROLES.has(result.role)) return 'role must be "user" or "assistant"'
  if (!isRecord(result.content) && !Array.isArray(result.content)) return 'content must be a content block or an array of them'
  if (typeof result.model !== 'string') return 'model must be a string'
  return undefined
}

function checkListRootsResult (result: Record<string, unknown>): string | undefined {
  if (!Array.isArray(result.roots) || !result.roots.every((root) => isRecord(root) && typeof root.uri === 'string')) {
    return 'roots must be an array of objects with a uri'
  }
  return undefined
}

const CHECKS: Readonly<Record<string, (result: Record<string, unknown>) => string | undefined>> = {
  'elicitation/create': checkElicitResult,
  'sampling/createMessage': checkCreateMessageResult,
  'roots/list': checkListRootsResult
}

/** What is wrong with `result` as the answer to a `method` input request; undefined when it will do. */
export function checkInputResponse (method: string, result: Record<string, unknown>): string | undefined {
  return CHECKS[method]?.(result)
}
