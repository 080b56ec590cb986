// The event-stream side of a legacy SSE session on a bare TCP socket: one GET written by hand,
// the response's headers skipped, its chunked body decoded and split into events. Compared with
// an http.ClientRequest per stream this costs a few microseconds per event instead of ~15, which
// matters when one client process on a two-core machine must take 10,000 deliveries of a
// broadcast: with node:http the client, not the server, set the fan-out time.
// Bytes are read as latin1 so that chunk sizes (in bytes) are string lengths; the servers under
// test send ASCII, and data is re-decoded as UTF-8 only when it holds other bytes.
import net from 'node:net'

const HEADER_END = '\r\n\r\n'

export class RawSseSession {
  constructor (baseUrl, { headers = {}, path = '/sse', onMessage = () => {} } = {}) {
    this.base = new URL(baseUrl)
    this.headers = headers
    this.path = path
    this.onMessage = onMessage
    this.messagePath = undefined
    this.closed = false
    this.socket = undefined
    this.raw = '' // bytes not yet decoded
    this.inBody = false
    this.chunked = false
    this.remaining = 0 // bytes left in the current chunk; -1 = expecting a size line
    this.skipCrlf = false
    this.events = '' // decoded body not yet split into events
  }

  open (timeoutMs = 30000) {
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (error) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        this.close()
        reject(error)
      }
      const timer = setTimeout(() => fail(new Error('no endpoint event in time')), timeoutMs)
      this.onEndpoint = (path) => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        resolve(path)
      }
      this.onStatus = (status) => { if (status !== 200) fail(new Error(`GET ${this.path} answered ${status}`)) }
      const socket = net.connect({ host: this.base.hostname, port: Number(this.base.port), noDelay: true })
      this.socket = socket
      socket.setEncoding('latin1')
      let head = `GET ${this.path} HTTP/1.1\r\nHost: ${this.base.host}\r\nAccept: text/event-stream\r\nCache-Control: no-cache\r\n`
      for (const [name, value] of Object.entries(this.headers)) head += `${name}: ${value}\r\n`
      socket.write(head + '\r\n')
      socket.on('data', (chunk) => this.receive(chunk))
      socket.on('error', (error) => fail(error))
      socket.on('close', () => { this.closed = true; fail(new Error('stream closed before the endpoint event')) })
    })
  }

  receive (chunk) {
    let data = this.raw.length === 0 ? chunk : this.raw + chunk
    this.raw = ''
    if (!this.inBody) {
      const end = data.indexOf(HEADER_END)
      if (end === -1) { this.raw = data; return }
      const head = data.slice(0, end)
      this.onStatus?.(Number(head.slice(9, 12)))
      this.chunked = /\r\ntransfer-encoding:[ \t]*chunked/i.test(head)
      this.inBody = true
      this.remaining = this.chunked ? -1 : Infinity
      data = data.slice(end + 4)
    }
    if (!this.chunked) { this.feed(data); return }
    let at = 0
    let body = ''
    while (at < data.length) {
      if (this.skipCrlf) {
        if (data.length - at < 2) break
        at += 2
        this.skipCrlf = false
        this.remaining = -1
      }
      if (this.remaining === -1) {
        const eol = data.indexOf('\r\n', at)
        if (eol === -1) break
        this.remaining = parseInt(data.slice(at, eol), 16)
        at = eol + 2
        if (this.remaining === 0) { this.close(); break }
      }
      const take = Math.min(this.remaining, data.length - at)
      body += data.slice(at, at + take)
      at += take
      this.remaining -= take
      if (this.remaining === 0) this.skipCrlf = true
    }
    if (at < data.length) this.raw = data.slice(at)
    if (body.length > 0) this.feed(body)
  }

  feed (text) {
    if (this.events.length > 0) text = this.events + text
    if (text.includes('\r')) text = text.replace(/\r\n?/g, '\n')
    let start = 0
    let end = text.indexOf('\n\n')
    while (end !== -1) {
      this.dispatch(text.slice(start, end))
      start = end + 2
      end = text.indexOf('\n\n', start)
    }
    this.events = start === 0 ? text : text.slice(start)
  }

  dispatch (block) {
    let event = 'message'
    let data
    for (const line of block.split('\n')) {
      if (line.startsWith('data:')) {
        const value = line.charCodeAt(5) === 32 ? line.slice(6) : line.slice(5)
        data = data === undefined ? value : data + '\n' + value
      } else if (line.startsWith('event:')) {
        event = line.slice(line.charCodeAt(6) === 32 ? 7 : 6)
      }
    }
    if (data === undefined) return
    // latin1 -> UTF-8 only when a byte above 0x7f is present.
    // eslint-disable-next-line no-control-regex
    if (/[^\x00-\x7f]/.test(data)) data = Buffer.from(data, 'latin1').toString('utf8')
    if (event === 'endpoint') {
      const url = new URL(data, this.base)
      this.messagePath = url.pathname + url.search
      this.onEndpoint?.(this.messagePath)
      this.onEndpoint = undefined
    } else if (event === 'message') {
      this.onMessage(data, this)
    }
  }

  close () {
    this.closed = true
    this.socket?.destroy()
  }
}
