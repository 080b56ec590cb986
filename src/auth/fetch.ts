// The one way auth talks to its peers (key sets, authorization servers): bounded in time and in
// size, no redirects, and error messages that name the URL's origin and path only. A peer is
// trusted to sign keys, not to make this process buffer an endless body or follow it elsewhere.

export interface FetchJsonOptions {
  method?: 'GET' | 'POST'
  headers?: Record<string, string>
  body?: string
  /** Gives up after this many milliseconds. */
  timeoutMs: number
  /**
   * The time limit a timeout error names, when `timeoutMs` is what is left of a larger one (the
   * operator configured that one, not what remained of it); `timeoutMs` by default.
   */
  budgetMs?: number
  /** Largest response body read, in bytes. */
  maxBytes: number
  /** Aborts the request when the guard closes. */
  signal?: AbortSignal
}

export interface JsonResponse {
  status: number
  /** The parsed body; undefined when it is not JSON. */
  body: unknown
}

/** Thrown for network failures, timeouts, redirects and oversized bodies; the message is safe to log. */
export class PeerError extends Error {
  override name = 'PeerError'
}

/** `scheme://host/path`, without userinfo, query or fragment, which may carry credentials. */
export function describeUrl (url: string): string {
  if (!URL.canParse(url)) return 'an invalid URL'
  const u = new URL(url)
  return `${u.protocol}//${u.host}${u.pathname}`
}

export async function fetchJson (url: string, options: FetchJsonOptions): Promise<JsonResponse> {
  const timeout = AbortSignal.timeout(options.timeoutMs)
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal])
  let response: Response
  try {
    response = await fetch(url, {
      method: options.method ?? 'GET',
      headers: { accept: 'application/json', ...options.headers },
      body: options.body,
      // A redirect could lead the request (and, for introspection, the client credentials) to
      // another host: refuse it and let the operator configure the final URL.
      redirect: 'manual',
      signal
    })
  } catch (error) {
    if (timeout.aborted) throw new PeerError(`${describeUrl(url)} did not answer within ${options.budgetMs ?? options.timeoutMs} ms`)
    // undici reports "fetch failed" and puts the reason (ECONNREFUSED...) in `cause`.
    const cause = (error as Error).cause
    const reason = cause instanceof Error ? cause.message : (error as Error).message
    throw new PeerError(`${describeUrl(url)} could not be reached (${reason})`)
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel()
    throw new PeerError(`${describeUrl(url)} answered with a redirect (${response.status}), which is not followed`)
  }
  const text = await readLimited(response, options.maxBytes, url)
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    body = undefined
  }
  return { status: response.status, body }
}

async function readLimited (response: Response, maxBytes: number, url: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (declared > maxBytes) {
    await response.body?.cancel()
    throw new PeerError(`${describeUrl(url)} answered with more than ${maxBytes} bytes`)
  }
  /* c8 ignore next: fetch gives a body for every status auth reads */
  if (response.body === null) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    for await (const chunk of response.body) {
      size += chunk.byteLength
      // Throwing out of the loop returns the iterator, which cancels the stream.
      if (size > maxBytes) {
        throw new PeerError(`${describeUrl(url)} answered with more than ${maxBytes} bytes`)
      }
      chunks.push(chunk)
    }
  } catch (error) {
    if (error instanceof PeerError) throw error
    throw new PeerError(`${describeUrl(url)} broke off its answer`)
  }
  return Buffer.concat(chunks).toString('utf8')
}
