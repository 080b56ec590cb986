import { ErrorCode, McpError } from '../jsonrpc.js'
import type { ToolResult } from '../definitions.js'
import { paginate } from '../pagination.js'
import { shapeDescriptor, supports } from '../versions.js'
import { errorMessage, optionalObject, requireString, type MethodHandler } from './types.js'

export const listTools: MethodHandler = (params, { registry, session, server }) => {
  const version = session.protocolVersion as string
  const { page, nextCursor } = paginate(registry.tools.values(), params.cursor, server.pageSize)
  const tools = page.map((tool) => shapeDescriptor(tool.wire, version))
  return nextCursor === undefined ? { tools } : { tools, nextCursor }
}

function toolError (text: string): Record<string, unknown> {
  return { content: [{ type: 'text', text }], isError: true }
}

/**
 * Argument problems and handler failures are tool results with `isError`, so
 * the model can read them and try again; an unknown tool is a protocol error.
 */
export const callTool: MethodHandler = async (params, { registry, ctx, session, logger }) => {
  const name = requireString(params, 'name')
  const tool = registry.tools.get(name)
  if (tool === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name.slice(0, 128)}`)
  const args = optionalObject(params, 'arguments') ?? {}
  const problem = tool.validateInput(args)
  if (problem !== undefined) return toolError(`Invalid arguments for tool ${name}: ${problem}`)

  let result: ToolResult
  try {
    result = await tool.handler(args, ctx)
  } catch (error) {
    if (error instanceof McpError || ctx.aborted) throw error
    logger.error({ err: error, tool: name, session: session.id }, 'tool handler failed')
    // The message is the tool's own words for the model; the stack stays in the server log.
    return toolError(`Tool ${name} failed: ${errorMessage(error)}`)
  }
  return finishToolResult(name, result, tool.validateOutput, session.protocolVersion as string)
}

function finishToolResult (name: string, result: ToolResult, validateOutput: ((value: unknown) => string | undefined) | undefined, version: string): Record<string, unknown> {
  if (typeof result !== 'object' || result === null || (result.content === undefined && result.structuredContent === undefined)) {
    throw new McpError(ErrorCode.InternalError, `Tool ${name} returned neither content nor structuredContent`)
  }
  const shaped: Record<string, unknown> = { ...result }
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
  else if (!supports(version, 'anyStructuredContent') && !isPlainObject(result.structuredContent)) delete shaped.structuredContent
  return shaped
}

function isPlainObject (value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
