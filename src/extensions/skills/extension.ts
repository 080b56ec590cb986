import { existsSync, readdirSync, statSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { DuplicateDefinitionError, InvalidDefinitionError } from '../../errors.js'
import type { AccessRule } from '../../protocol/authz/rules.js'
import type { ResourceDefinition, SkillDefinition } from '../../protocol/definitions.js'
import type { ProtocolExtension } from '../../protocol/extension.js'
import type { Registration, Registry } from '../../protocol/registry.js'
import { isRecord } from '../../util/is-record.js'
import { readSkillFolder, skillFilesOf } from './files.js'
import type { SkillsSettings } from './limits.js'
import { skillMethods } from './methods.js'
import { buildSkill, SKILL_MD, type Skill, type SkillFile } from './skill.js'

export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills'

const FOLDER_KEYS = new Set(['dir', 'auth'])
const FILES_KEYS = new Set(['name', 'files', 'auth'])

/** A skill definition takes only its own keys (a misspelt `auth` must not pass unnoticed). */
function requireKeys (definition: object, known: ReadonlySet<string>, where: string): void {
  for (const key of Object.keys(definition)) {
    if (!known.has(key)) throw new InvalidDefinitionError('skill', `${where}: unknown field ${JSON.stringify(key)}; a skill takes ${[...known].join(', ')}`)
  }
}

/**
 * Skills (`io.modelcontextprotocol/skills`, SEP-2640): agent skills published as `skill://`
 * resources, enumerated by `skills/list`, described by `skills/get`, browsed by
 * `resources/directory/read` with `directoryRead`. A skill's files are read, bounded and
 * digested when it is registered, so what clients verify is what the server holds.
 */
export class SkillsExtension implements ProtocolExtension {
  readonly id = SKILLS_EXTENSION
  readonly methods: ProtocolExtension['methods']
  private readonly registry: Registry
  private readonly settings: SkillsSettings
  /** By name: a skill's URI is `skill://<name>/SKILL.md`, so the name is unique. */
  private readonly skillsByName = new Map<string, Skill>()

  constructor (registry: Registry, settings: SkillsSettings) {
    this.registry = registry
    this.settings = settings
    this.methods = skillMethods(this.skillsByName, settings.directoryRead)
  }

  // Declared once a skill is published; `resources` comes with it (the skill's files are resources).
  readonly capability = (): Record<string, unknown> | undefined => {
    if (this.skillsByName.size === 0) return undefined
    return this.settings.directoryRead ? { directoryRead: true } : {}
  }

  skill (definition: SkillDefinition): Registration {
    if (!isRecord(definition)) throw new InvalidDefinitionError('skill', 'the definition must be an object: { dir } or { name, files }')
    const auth = (definition as { auth?: AccessRule }).auth
    if ('dir' in definition) {
      const { dir } = definition
      if (typeof dir !== 'string' || dir === '') throw new InvalidDefinitionError('skill', 'dir must be a path')
      requireKeys(definition, FOLDER_KEYS, dir)
      return this.fromFolder(resolve(dir), auth)
    }
    const { name, files } = definition as { name?: unknown, files?: unknown }
    if (typeof name !== 'string' || name === '') throw new InvalidDefinitionError('skill', 'give { dir } or { name, files }: name must be a non-empty string')
    requireKeys(definition, FILES_KEYS, name)
    if (!isRecord(files)) throw new InvalidDefinitionError('skill', `${name}: files must be an object of path to text or bytes`)
    return this.publish(name, () => buildSkill(name, skillFilesOf(files, this.settings)), name, auth)
  }

  skills (parentDir: string): Registration {
    if (typeof parentDir !== 'string' || parentDir === '') throw new InvalidDefinitionError('skills', 'the folder must be a path')
    const parent = resolve(parentDir)
    if (statSync(parent, { throwIfNoEntry: false })?.isDirectory() !== true) throw new InvalidDefinitionError('skills', `${parent} is not a folder`)
    const registrations: Registration[] = []
    try {
      for (const name of readdirSync(parent).sort()) {
        const dir = join(parent, name)
        if (statSync(dir).isDirectory() && existsSync(join(dir, SKILL_MD))) registrations.push(this.fromFolder(dir))
      }
    } catch (error) {
      for (const registration of registrations) registration.remove()
      throw error
    }
    return { remove: () => { for (const registration of registrations) registration.remove() } }
  }

  private fromFolder (dir: string, auth?: AccessRule): Registration {
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) throw new InvalidDefinitionError('skill', `${dir} is not a folder`)
    return this.publish(basename(dir), () => buildSkill(basename(dir), readSkillFolder(dir, this.settings)), dir, auth)
  }

  /** Builds the skill (its errors name it) and registers it and its files, all or none. */
  private publish (name: string, build: () => Skill, where: string, auth: AccessRule | undefined): Registration {
    let skill: Skill
    try {
      skill = build()
    } catch (error) {
      throw new InvalidDefinitionError('skill', `${where}: ${(error as Error).message}`)
    }
    if (this.skillsByName.has(skill.name)) throw new DuplicateDefinitionError('skill', skill.name)
    const files: Registration[] = []
    try {
      for (const file of skill.files) files.push(this.registerFile(skill, file, auth))
    } catch (error) {
      for (const registration of files) registration.remove()
      throw error
    }
    this.skillsByName.set(skill.name, skill)
    let removed = false
    return {
      remove: () => {
        if (removed) return
        removed = true
        this.skillsByName.delete(skill.name)
        for (const registration of files) registration.remove()
      }
    }
  }

  /**
   * A file as a resource: `SKILL.md` listed under the frontmatter's name and description (SEP-2640,
   * Resource Metadata), the others readable but unlisted. The content is what was digested.
   */
  private registerFile (skill: Skill, file: SkillFile, auth: AccessRule | undefined): Registration {
    const manifest = file.uri === skill.uri
    const content = file.text === undefined ? { uri: file.uri, mimeType: file.mimeType, blob: file.bytes } : { uri: file.uri, mimeType: file.mimeType, text: file.text }
    const definition: ResourceDefinition = manifest
      ? { uri: file.uri, name: skill.name, description: skill.frontmatter.description, mimeType: file.mimeType, size: file.bytes.length }
      : { uri: file.uri, name: file.path, mimeType: file.mimeType, size: file.bytes.length }
    // Every file of the skill under the skill's rule: reading one is using the skill.
    if (auth !== undefined) definition.auth = auth
    return this.registry.resource(definition, async () => ({ contents: [content] }), { listed: manifest })
  }
}
