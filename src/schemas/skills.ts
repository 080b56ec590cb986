import { Type, type Static } from '@sinclair/typebox'
import { SKILLS_DEFAULTS } from '../extensions/skills/limits.js'
import { Defaulted, strict } from './engine/schema.js'

/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640): what `skill()` and `skills()` accept and
 * what the server serves. A skill past a bound is refused when it is registered.
 */
const SkillsOptionsSchema = Type.Object({
  /** Serve `resources/directory/read` over the skills' folders (declared as `directoryRead`). Default false. */
  directoryRead: Defaulted(Type.Boolean({ default: SKILLS_DEFAULTS.directoryRead })),
  /** Files one skill may hold, `SKILL.md` included (folders count against it too). Default 512. */
  maxEntries: Defaulted(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxEntries })),
  /** Largest file of a skill, in bytes. Default 16777216 (16 MiB). */
  maxFileBytes: Defaulted(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxFileBytes })),
  /** Largest skill, all its files together, in bytes. Default 16777216 (16 MiB). */
  maxTotalBytes: Defaulted(Type.Integer({ minimum: 1, default: SKILLS_DEFAULTS.maxTotalBytes }))
}, { ...strict, default: {} })
export type SkillsOptions = Static<typeof SkillsOptionsSchema>

export const skillsProperties = {
  /** Skills served with `skill()` / `skills()`: `directoryRead` and the bounds of a skill; every field has a default. */
  skills: Defaulted(SkillsOptionsSchema)
}
