const MiB = 1024 * 1024

/**
 * Defaults of the `skills` option. The entry and byte bounds are the interoperability limits of
 * SEP-2640 (what hosts must accept, and what the official SDKs refuse beyond): 512 files and
 * 16 MiB per skill.
 */
export const SKILLS_DEFAULTS = Object.freeze({
  directoryRead: false,
  maxEntries: 512,
  maxFileBytes: 16 * MiB,
  maxTotalBytes: 16 * MiB
})

/** The `skills` option with its defaults filled in. */
export type SkillsSettings = { readonly [K in keyof typeof SKILLS_DEFAULTS]: (typeof SKILLS_DEFAULTS)[K] extends boolean ? boolean : number }
