import { ErrorCode, McpError } from '../jsonrpc/errors.js'
import { abortReason } from '../testing/channel.js'
import type { HttpAnswer, HttpExchange } from '../testing/http-channel.js'

/** A server that cannot be reached (refused, unknown host, TLS failure): its cause in words. */
export function unreachable (url: URL, error: unknown): McpError {
  const cause = (error as { cause?: { message?: unknown, code?: unknown } }).cause
  const detail = typeof cause?.message === 'string' && cause.message !== '' ? cause.message : (error as Error).message
  return new McpError(ErrorCode.ConnectionClosed, `Cannot reach ${url.origin}: ${detail}`)
}

/** The answer's headers as a record with lower-cased names. */
export function headersOf (response: Response): Record<string, string> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => { headers[name.toLowerCase()] = value })
  return headers
}

/** HTTP over `fetch`, to a server on the network: what the command line uses for an http(s) URL. */
export function fetchExchange (url: URL): HttpExchange {
  return async ({ method, headers, body, signal }): Promise<HttpAnswer> => {
    const controller = new AbortController()
    const onAbort = (): void => { controller.abort(signal?.reason) }
    signal?.addEventListener('abort', onAbort, { once: true })
    let response: Response
    try {
      response = await fetch(url, { method, headers, signal: controller.signal, ...(body === undefined ? {} : { body }) })
    } catch (error) {
      if (signal?.aborted === true) throw abortReason(signal)
      throw unreachable(url, error)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    const stream = response.body
    return {
      status: response.status,
      headers: headersOf(response),
      body: stream ?? emptyBody(),
      // Aborting the fetch closes its connection: the server sees its client leave.
      cancel: () => { controller.abort() }
    }
  }
}

export async function * emptyBody (): AsyncGenerator<Uint8Array> {}
