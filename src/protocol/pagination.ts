import { ErrorCode, McpError } from '../jsonrpc/errors.js'

/**
 * Offset cursors, opaque to clients. A list that changes between pages may
 * shift items; MCP allows that, and `list_changed` tells clients to re-list.
 */
export function paginate<T> (items: Iterable<T>, cursor: unknown, pageSize: number): { page: T[], nextCursor: string | undefined } {
  const offset = decodeCursor(cursor)
  const all = Array.isArray(items) ? items as T[] : [...items]
  const page = all.slice(offset, offset + pageSize)
  const next = offset + pageSize
  return { page, nextCursor: next < all.length ? Buffer.from(`o:${next}`).toString('base64url') : undefined }
}

function decodeCursor (cursor: unknown): number {
  if (cursor === undefined) return 0
  if (typeof cursor === 'string') {
    const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString())
    if (match !== null) return Number(match[1])
  }
  throw new McpError(ErrorCode.InvalidParams, 'Invalid cursor')
}
