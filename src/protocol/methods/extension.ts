import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import type { MethodHandler } from './types.js'

/**
 * The handler of a method an extension serves (src/extensions/): its row is in the method table
 * like any other (generations, caching), its work is the installed extension's. A server built
 * without that extension does not have the method: -32601, as for any unknown method.
 */
export function servedByExtension (method: string): MethodHandler {
  return (params, env) => {
    const handler = env.extensionMethods.get(method)
    if (handler === undefined) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
    return handler(params, env)
  }
}
