import { createHash } from 'node:crypto'
import { frontmatterOf, type Frontmatter } from './frontmatter.js'
import type { SkillFiles } from './files.js'
import { mimeTypeOf, textOf } from './mime.js'

export const SKILL_MD = 'SKILL.md'
/** What a directory resource is (SEP-2640, Directory Listing). */
export const DIRECTORY_MIME_TYPE = 'inode/directory'

/** One file of a skill, ready to serve: its URI, bytes, digest and how it goes on the wire. */
export interface SkillFile {
  readonly path: string
  readonly uri: string
  readonly bytes: Buffer
  readonly mimeType: string
  /** The bytes as text when they are UTF-8 of a textual type; a blob otherwise. */
  readonly text: string | undefined
}

/** A child of a directory resource, as `resources/directory/read` lists it. */
export type DirectoryChild = Readonly<Record<string, unknown>>

/** A skill as the server holds it: its entry (what `skills/list` and `skills/get` send), files and folders. */
export interface Skill {
  readonly name: string
  /** The URI of its `SKILL.md`, which names the skill. */
  readonly uri: string
  readonly frontmatter: Frontmatter
  readonly files: readonly SkillFile[]
  /** The entry, built once: `{ uri, frontmatter, resources: [{ uri, digest, size }] }`. */
  readonly entry: Readonly<Record<string, unknown>>
  /** Each folder's URI (the root `skill://<name>` included, no trailing slash) with its direct children. */
  readonly directories: ReadonlyMap<string, readonly DirectoryChild[]>
}

/** A segment of a file path as it goes into a URI. */
const encode = (path: string): string => path.split('/').map(encodeURIComponent).join('/')

/**
 * Builds a skill from its files: `SKILL.md` parsed for the frontmatter, whose name must be
 * `expectedName` (the folder's, or the one given with the files), every file digested (SHA-256 of
 * its raw bytes, `sha256:<hex>`). Throws a sentence; the caller names the skill.
 */
export function buildSkill (expectedName: string, files: SkillFiles): Skill {
  const manifest = files.get(SKILL_MD)
  if (manifest === undefined) throw new Error(`it has no ${SKILL_MD} at its root`)
  const markdown = textOf(manifest, 'text/markdown')
  if (markdown === undefined) throw new Error(`${SKILL_MD} is not UTF-8 text`)
  const frontmatter = frontmatterOf(markdown)
  if (frontmatter.name !== expectedName) throw new Error(`its ${SKILL_MD} names it ${JSON.stringify(frontmatter.name)}; the name must be ${JSON.stringify(expectedName)} (the folder's or the one given)`)
  const root = `skill://${frontmatter.name}`
  const served: SkillFile[] = [...files].map(([path, bytes]) => {
    const mimeType = mimeTypeOf(path)
    return { path, uri: `${root}/${encode(path)}`, bytes, mimeType, text: textOf(bytes, mimeType) }
  })
  const uri = `${root}/${SKILL_MD}`
  const resources = served.map((file) => ({ uri: file.uri, digest: digestOf(file.bytes), size: file.bytes.length }))
  return {
    name: frontmatter.name,
    uri,
    frontmatter,
    files: served,
    entry: Object.freeze({ uri, frontmatter, resources }),
    directories: directoriesOf(root, served)
  }
}

function digestOf (bytes: Buffer): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`
}

/** Every folder of the skill with its direct children, folders first, each group by name. */
function directoriesOf (root: string, files: readonly SkillFile[]): ReadonlyMap<string, DirectoryChild[]> {
  const folders = new Map<string, { dirs: Map<string, DirectoryChild>, files: DirectoryChild[] }>()
  const folder = (path: string) => {
    let found = folders.get(path)
    if (found === undefined) {
      found = { dirs: new Map(), files: [] }
      folders.set(path, found)
    }
    return found
  }
  folder('')
  for (const file of files) {
    const segments = file.path.split('/')
    const name = segments.pop() ?? file.path
    let parent = ''
    for (const segment of segments) {
      const path = parent === '' ? segment : `${parent}/${segment}`
      folder(parent).dirs.set(segment, { uri: `${root}/${encode(path)}`, name: segment, mimeType: DIRECTORY_MIME_TYPE })
      folder(path)
      parent = path
    }
    folder(parent).files.push({ uri: file.uri, name, mimeType: file.mimeType, size: file.bytes.length })
  }
  const byName = (a: DirectoryChild, b: DirectoryChild): number => String(a.name) < String(b.name) ? -1 : 1
  return new Map([...folders].map(([path, children]) => [
    path === '' ? root : `${root}/${encode(path)}`,
    [...[...children.dirs.values()].sort(byName), ...children.files.sort(byName)]
  ]))
}
