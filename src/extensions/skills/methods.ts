import { ErrorCode, McpError } from '../../jsonrpc/errors.js'
import { requireUri, type MethodEnv, type MethodHandler } from '../../protocol/methods/types.js'
import { privateOnModern } from '../../protocol/authz/lists.js'
import { paginate } from '../../protocol/pagination.js'
import type { Skill } from './skill.js'

/** The skill a `skill://<name>/...` URI falls in, by the name in its authority. */
export function skillOf (skills: ReadonlyMap<string, Skill>, uri: string): Skill | undefined {
  const match = /^skill:\/\/([^/?#]+)/.exec(uri)
  return match === null ? undefined : skills.get(match[1] ?? '')
}

/**
 * Whether the caller may use `skill`: the rule of its `SKILL.md` resource (the skill's own `auth`,
 * or `defaultAuth`), which every file of the skill shares.
 */
async function reaches (skill: Skill, { registry, access }: MethodEnv): Promise<boolean> {
  const manifest = registry.resources.get(skill.uri)
  return manifest === undefined || await access.reach(manifest)
}

/** The skills the caller may see, in order. */
async function visibleSkills (all: Iterable<Skill>, { registry, access }: Pick<MethodEnv, 'registry' | 'access'>): Promise<Skill[]> {
  const skills = [...all]
  const shown = await Promise.all(skills.map(async (skill) => {
    const manifest = registry.resources.get(skill.uri)
    return manifest === undefined || await access.shows(manifest)
  }))
  return skills.filter((_skill, i) => shown[i])
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
    'skills/list': async (params, env) => {
      const visible = env.access.gated ? await visibleSkills(skills.values(), env) : [...skills.values()]
      const { page, nextCursor } = paginate(visible, params.cursor, env.server.pageSize)
      const listed = page.map((skill) => skill.entry)
      const result = nextCursor === undefined ? { skills: listed } : { skills: listed, nextCursor }
      return env.access.gated ? privateOnModern(result, env) : result
    },
    'skills/get': async (params, env) => {
      const uri = requireUri(params, 'uri', env.limits)
      const skill = skillOf(skills, uri)
      if (skill === undefined || skill.uri !== uri || !await reaches(skill, env)) throw unknown('Unknown skill: params.uri must be the URI of a skill\'s SKILL.md', uri)
      return env.access.gated ? privateOnModern({ skill: skill.entry }, env) : { skill: skill.entry }
    }
  }
  if (directoryRead) {
    methods['resources/directory/read'] = async (params, env) => {
      const { limits, server } = env
      const uri = requireUri(params, 'uri', limits)
      const skill = skillOf(skills, uri)
      const children = skill?.directories.get(uri)
      // A skill hidden from the caller has no directories for it, as one that does not exist.
      if (skill === undefined || children === undefined || !await reaches(skill, env)) throw unknown('Not a directory resource', uri)
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
