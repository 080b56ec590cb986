import { McpError } from '@modelcontextprotocol/sdk/types.js'

/**
 * The JSON-RPC error a client call ends with, for asserting on it; fails the test when the call
 * succeeds or fails with anything but a JSON-RPC error (a network error, a bug in the client).
 */
export async function rpcError (promise: Promise<unknown>): Promise<{ code: number, message: string, data?: unknown }> {
  try {
    await promise
  } catch (error) {
    if (error instanceof McpError) return { code: error.code, message: error.message, data: error.data }
    throw error
  }
  throw new Error('expected a JSON-RPC error')
}
