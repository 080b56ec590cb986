import type { Readable } from 'node:stream'

/**
 * Collects what a stdio runner writes, one parsed JSON-RPC message per line, into the returned
 * array as it arrives; `onLine` runs after each one (to wake a waiter).
 */
export function collectJsonLines (output: Readable, onLine: () => void = () => {}): any[] {
  const lines: any[] = []
  let buffered = ''
  // Decoded by the stream, so that a character split across two chunks comes out whole.
  output.setEncoding('utf8')
  output.on('data', (chunk: string) => {
    buffered += chunk
    let index
    while ((index = buffered.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(buffered.slice(0, index)))
      buffered = buffered.slice(index + 1)
      onLine()
    }
  })
  return lines
}
