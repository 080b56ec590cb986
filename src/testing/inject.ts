import type { FastifyInstance } from 'fastify'
import type { HttpExchange } from './http-channel.js'

/**
 * HTTP through `app.inject()`: no socket, no port, yet every route, hook (auth, CORS, the Host
 * guard), body limit and error handler of the app runs as for a real request. Answers are read
 * as streams (`payloadAsStream`), so an event stream is consumed while the handler still runs.
 */
export function injectExchange (app: FastifyInstance, path: string): HttpExchange {
  return async ({ method, headers, body }) => {
    const answer = await app.inject({ method, url: path, headers, ...(body === undefined ? {} : { payload: body }), payloadAsStream: true })
    const flat: Record<string, string> = {}
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    }
    const stream = answer.stream()
    // Destroying the response is what the server sees when a client drops its connection.
    stream.on('error', () => {})
    return { status: answer.statusCode, headers: flat, body: stream, cancel: () => { answer.raw.res.destroy() } }
  }
}
