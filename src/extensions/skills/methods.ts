import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { requireUri, type MethodHandler } from '../../protocol/methods/types.js'
import { paginate } from '../../protocol/pagination.js'
import type { Skill } from './skill.js'

/** The skill a `skill://<name>/...` URI falls in, by the name in its authority. */
export function skillOf (skills: ReadonlyMap<string, Skill>, uri: string): Skill | undefined {
  const match = /^skill:\/\/([^/?#]+)/.exec(uri)
  return match === null ? undefined : skills.get(match[1] ?? '')
}

/** -32602 with the URI (shortened) in `data`, as `resources/read` answers for an unknown resource. */
function unknown (what: string, uri: string): McpError {
  return new McpError(ErrorCode.InvalidParams, what, { uri: uri.slice(0, 2048) })
}

/**
 * `skills/list` and `skills/get` (SEP-2640, Discovery), and `resources/directory/read` (Directory
 * Listing) when `directoryRead` is on. Pages hold whole entries: an entry is never split.
 */
export function skillMethods (skills: ReadonlyMap<string, Skill>, directoryRead: boolean): Record<string, MethodHandler> {
  const methods: Record<string, MethodHandler> = {
    'skills/list': (params, { server }) => {
      const { page, nextCursor } = paginate(skills.values(), params.cursor, server.pageSize)
      const listed = page.map((skill) => skill.entry)
      return nextCursor === undefined ? { skills: listed } : { skills: listed, nextCursor }
    },
    'skills/get': (params, { limits }) => {
      const uri = requireUri(params, 'uri', limits)
      const skill = skillOf(skills, uri)
      if (skill === undefined || skill.uri !== uri) throw unknown('Unknown skill: params.uri must be the URI of a skill\'s SKILL.md', uri)
      return { skill: skill.entry }
    }
  }
  if (directoryRead) {
    methods['resources/directory/read'] = (params, { limits, server }) => {
      const uri = requireUri(params, 'uri', limits)
      const children = skillOf(skills, uri)?.directories.get(uri)
      if (children === undefined) throw unknown('Not a directory resource', uri)
      const { page, nextCursor } = paginate(children, params.cursor, server.pageSize)
      return nextCursor === undefined ? { resources: page } : { resources: page, nextCursor }
    }
  }
  // Without a skill the extension is not declared, and its methods are not there either.
  return Object.fromEntries(Object.entries(methods).map(([method, handler]) => [method, (params, env) => {
    if (skills.size === 0) throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`)
    return handler(params, env)
  }]))
}
