import type { PromptResult } from '../definitions.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { listPage } from '../authz/lists.js'
import { shapeDescriptor } from '../../jsonrpc/versions.js'
import { optionalObject, requireString, type MethodHandler } from './types.js'
import { shallowCopy } from '../../util/shallow-copy.js'

export const listPrompts: MethodHandler = (params, env) => listPage('prompts', env.registry.prompts.values(), params, env, (page, nextCursor) => {
  const prompts = page.map((prompt) => shapeDescriptor(prompt.wire, env.session.protocolVersion as string))
  return nextCursor === undefined ? { prompts } : { prompts, nextCursor }
})

export const getPrompt: MethodHandler = async (params, { registry, ctx, access }) => {
  const name = requireString(params, 'name')
  const prompt = registry.prompts.get(name)
  // Hidden from this caller by its rule: the answer of a prompt that does not exist.
  const reach = prompt === undefined ? false : access.reach(prompt)
  if (prompt === undefined || (reach !== true && !await reach)) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name.slice(0, 128)}`)
  const args = optionalObject(params, 'arguments') ?? {}
  const notStrings = Object.keys(args).filter((key) => typeof args[key] !== 'string')
  if (notStrings.length > 0) throw new McpError(ErrorCode.InvalidParams, `Prompt arguments must be strings: ${notStrings.join(', ')}`)
  // Own keys only: `args.constructor` is Object's when the client did not send one.
  const missing = prompt.required.filter((argument) => !Object.hasOwn(args, argument))
  if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `Missing required arguments for prompt ${name}: ${missing.join(', ')}`)
  const result: PromptResult = await prompt.handler(args as never, ctx)
  if (typeof result !== 'object' || result === null || !Array.isArray(result.messages)) {
    throw new McpError(ErrorCode.InternalError, `Prompt ${name} returned no messages array`)
  }
  return shallowCopy(result)
}
