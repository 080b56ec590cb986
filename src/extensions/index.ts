import type { ExtensionsFactory } from '../protocol/extension.js'
import { AppsExtension } from './apps/extension.js'
import { SKILLS_DEFAULTS, type SkillsSettings } from './skills/limits.js'
import { SkillsExtension } from './skills/extension.js'

/** The protocol's extensions (MCP Apps, Skills) for a core; `skills` is the `skills` option. */
export function protocolExtensions (skills: Partial<SkillsSettings> | undefined): ExtensionsFactory {
  return (registry) => {
    const apps = new AppsExtension(registry)
    const skillSet = new SkillsExtension(registry, { ...SKILLS_DEFAULTS, ...skills })
    return {
      extensions: [apps, skillSet],
      registrations: {
        appResource: (definition) => apps.appResource(definition),
        skill: (definition) => skillSet.skill(definition),
        skills: (parentDir) => skillSet.skills(parentDir)
      }
    }
  }
}
