// HTTP over a bare TCP socket: for what a real HTTP client refuses to send (two Host lines, an
// absolute-form target, a header repeated, a body trickled byte by byte) and for seeing exactly
// what the server answers on the wire.
import { connect, type Socket } from 'node:net'

export interface RawAnswer {
  status: number
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>
  body: string
  /** Everything received, as text. */
  text: string
}

/** Opens a TCP connection to 127.0.0.1:port; rejects on connection errors. */
export async function openSocket (port: number): Promise<Socket> {
  return await new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => { resolve(socket) })
    socket.once('error', reject)
  })
}

/** Parses the first response of `text` (Content-Length or close-delimited bodies). */
export function parseAnswer (text: string): RawAnswer | undefined {
  const end = text.indexOf('\r\n\r\n')
  if (end === -1) return undefined
  const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n')
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  const length = headers['content-length']
  const rest = text.slice(end + 4)
  if (length !== undefined && Buffer.byteLength(rest) < Number(length)) return undefined
  return { status: Number(statusLine.split(' ')[1]), headers, body: length === undefined ? rest : rest.slice(0, Number(length)), text }
}

/**
 * Writes `request` (exact bytes, CRLFs included) and resolves with the first complete response,
 * or with what arrived when the server closed the connection. Closes the socket either way.
 */
export async function exchange (port: number, request: string, timeoutMs = 5000): Promise<RawAnswer> {
  const socket = await openSocket(port)
  return await new Promise((resolve, reject) => {
    let text = ''
    const timer = setTimeout(() => { finish(new Error(`no complete answer within ${timeoutMs} ms: ${JSON.stringify(text)}`)) }, timeoutMs)
    const finish = (error?: Error): void => {
      clearTimeout(timer)
      socket.destroy()
      if (error !== undefined) { reject(error); return }
      const answer = parseAnswer(text)
      if (answer === undefined) reject(new Error(`no complete answer: ${JSON.stringify(text)}`))
      else resolve(answer)
    }
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      if (parseAnswer(text) !== undefined) finish()
    })
    socket.on('close', () => { finish() })
    socket.on('error', () => {})
    socket.write(request)
  })
}
