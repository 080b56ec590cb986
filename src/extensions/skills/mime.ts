import { extname } from 'node:path'

// Enough to label what skills hold (instructions, references, scripts, templates, images); the rest
// is served as bytes.
const TYPES: Readonly<Record<string, string>> = {
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.txt': 'text/plain',
  '.html': 'text/html',
  '.css': 'text/css',
  '.csv': 'text/csv',
  '.xml': 'application/xml',
  '.json': 'application/json',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.toml': 'application/toml',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.ts': 'text/x-typescript',
  '.py': 'text/x-python',
  '.sh': 'application/x-sh',
  '.sql': 'application/sql',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip'
}

export function mimeTypeOf (path: string): string {
  return TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream'
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/**
 * The file as text when it is UTF-8 of a textual type, else undefined (sent as a blob). A BOM is
 * kept: the text must encode back to exactly the bytes the digest covers.
 */
export function textOf (bytes: Uint8Array, mimeType: string): string | undefined {
  if (!/^text\/|^application\/(json|xml|yaml|toml|sql|x-sh)$|\+xml$/.test(mimeType)) return undefined
  try {
    return utf8.decode(bytes)
  } catch {
    return undefined
  }
}
