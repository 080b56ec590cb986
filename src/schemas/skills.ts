import { Type, type Static } from '@sinclair/typebox'
import { SKILLS_DEFAULTS } from '../extensions/skills/limits.js'

/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640): what `skill()` and `skills()` accept and
 * what the server serves. A skill past a bound is refused when it is registered.
 */
export const SkillsOptionsSchema = Type.Object({
  /** Serve `resources/directory/read` over the skills' folders (declared as `directoryRead`). Default false. */
  directoryRead: Type.Optional(Type.Boolean({ default: SKILLS_DEFAULTS.directoryRead })),
  /** Files one skill may hold, `SKILL.md` included (folders count against it too). Default 512. */
  maxEntries: Type.Optional(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxEntries })),
  /** Largest file of a skill, in bytes. Default 16777216 (16 MiB). */
  maxFileBytes: Type.Optional(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxFileBytes })),
  /** Largest skill, all its files together, in bytes. Default 16777216 (16 MiB). */
  maxTotalBytes: Type.Optional(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxTotalBytes }))
}, { additionalProperties: false, default: {} })
export type SkillsOptions = Static<typeof SkillsOptionsSchema>
