import { createRequire } from 'node:module'
import { isDeepStrictEqual } from 'node:util'
import type * as Yaml from 'yaml'
import { isRecord } from '../../util/is-record.js'

// The YAML parser loads with the first skill, not with the package: most servers have no skills,
// and it is some 20 ms of every start. `require`, because registering a skill is synchronous.
const require = createRequire(import.meta.url)
let yaml: typeof Yaml | undefined

// The block a `SKILL.md` opens with (Agent Skills specification): `---`, YAML, `---`.
const FRONTMATTER = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/
/** Agent Skills names: 1-64 of a-z, 0-9 and `-`, no `-` at either end or twice in a row. */
export const SKILL_NAME = /^(?!.*--)[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/
const MAX_DESCRIPTION = 1024
const MAX_COMPATIBILITY = 500
/** Keys of `metadata` reserved for MCP extensions (SEP-2640, Frontmatter); none is defined yet. */
const RESERVED_METADATA = 'io.modelcontextprotocol/'

export interface Frontmatter {
  name: string
  description: string
  [field: string]: unknown
}

/**
 * The frontmatter of a `SKILL.md`, as `skills/list` sends it: every field the author wrote, as
 * JSON. Throws a sentence saying what is wrong; the caller names the skill.
 */
export function frontmatterOf (markdown: string): Frontmatter {
  const block = FRONTMATTER.exec(markdown)
  if (block === null) throw new Error('SKILL.md must begin with YAML frontmatter between --- lines')
  let value: unknown
  try {
    // YAML 1.2 core schema: what the SDKs verifying the file against the entry parse it with.
    yaml ??= require('yaml') as typeof Yaml
    value = yaml.parse(block[1] ?? '', { schema: 'core' })
  } catch (error) {
    throw new Error(`the SKILL.md frontmatter is not valid YAML: ${(error as Error).message.split('\n')[0] ?? ''}`)
  }
  if (!isRecord(value)) throw new Error('the SKILL.md frontmatter must be a YAML mapping')
  // The entry carries it as JSON and hosts compare the two field by field: it must survive the trip.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(value)), value)) throw new Error('the SKILL.md frontmatter holds values JSON cannot carry')
  const { name, description, metadata } = value
  if (typeof name !== 'string' || !SKILL_NAME.test(name)) {
    throw new Error(`frontmatter name must be 1-64 characters of a-z, 0-9 and single inner hyphens; got ${JSON.stringify(name)}`)
  }
  if (typeof description !== 'string' || description === '' || description.length > MAX_DESCRIPTION) {
    throw new Error(`frontmatter description must be 1-${MAX_DESCRIPTION} characters`)
  }
  if (metadata !== undefined) {
    // Agent Skills: "a map from string keys to string values"; hosts refuse an entry with anything else.
    if (!isRecord(metadata) || Object.values(metadata).some((field) => typeof field !== 'string')) {
      throw new Error('frontmatter metadata must map keys to strings (quote numbers and booleans)')
    }
    const reserved = Object.keys(metadata).find((key) => key.startsWith(RESERVED_METADATA))
    if (reserved !== undefined) throw new Error(`frontmatter metadata key ${JSON.stringify(reserved)} uses the prefix reserved for MCP extensions`)
  }
  const { compatibility } = value
  if (compatibility !== undefined && (typeof compatibility !== 'string' || compatibility === '' || compatibility.length > MAX_COMPATIBILITY)) {
    throw new Error(`frontmatter compatibility must be 1-${MAX_COMPATIBILITY} characters`)
  }
  return value as Frontmatter
}
