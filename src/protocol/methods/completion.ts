import type { Completer } from '../definitions.js'
import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { optionalObject, requireString, requireUri, type MethodHandler } from './types.js'

const MAX_VALUES = 100

/** `completion/complete`: suggestions for a prompt argument or a template variable. */
export const complete: MethodHandler = async (params, { registry, limits, access }) => {
  const ref = optionalObject(params, 'ref')
  const argument = optionalObject(params, 'argument')
  if (ref === undefined || argument === undefined) throw new McpError(ErrorCode.InvalidParams, 'params.ref and params.argument are required')
  const argumentName = requireString(argument, 'name')
  const value = typeof argument.value === 'string' ? argument.value : ''
  const contextArguments = optionalObject(optionalObject(params, 'context') ?? {}, 'arguments') ?? {}

  let completer: Completer | undefined
  if (ref.type === 'ref/prompt') {
    const prompt = registry.prompts.get(requireString(ref, 'name'))
    // One the caller may not use completes as one that does not exist.
    if (prompt === undefined || !await access.reach(prompt)) throw new McpError(ErrorCode.InvalidParams, 'Unknown prompt')
    completer = prompt.completers.get(argumentName)
  } else if (ref.type === 'ref/resource') {
    const template = registry.templates.get(requireUri(ref, 'uri', limits))
    if (template === undefined || !await access.reach(template)) throw new McpError(ErrorCode.InvalidParams, 'Unknown resource template')
    completer = template.completers.get(argumentName)
  } else {
    throw new McpError(ErrorCode.InvalidParams, 'params.ref.type must be ref/prompt or ref/resource')
  }
  const values = completer === undefined ? [] : await completer(value, { arguments: contextArguments as Record<string, string> })
  if (!Array.isArray(values)) throw new McpError(ErrorCode.InternalError, 'A completer must return an array of strings')
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: values.length > MAX_VALUES } }
}
