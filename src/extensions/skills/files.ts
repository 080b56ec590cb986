import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { isAbsolute, join, relative, sep } from 'node:path'
import type { SkillsSettings } from './limits.js'

/** A skill's files by path relative to its root, `/`-separated, in a stable order. */
export type SkillFiles = ReadonlyMap<string, Buffer>

type Bounds = Pick<SkillsSettings, 'maxEntries' | 'maxFileBytes' | 'maxTotalBytes'>

/** Counts what a skill holds against the bounds while it is gathered, so that a huge tree stops early. */
class Tally {
  private entries = 0
  private bytes = 0
  private readonly bounds: Bounds

  constructor (bounds: Bounds) {
    this.bounds = bounds
  }

  add (path: string, size: number): void {
    if (++this.entries > this.bounds.maxEntries) throw new Error(`it holds more than ${this.bounds.maxEntries} files (skills.maxEntries)`)
    if (size > this.bounds.maxFileBytes) throw new Error(`${path} is ${size} bytes, over skills.maxFileBytes (${this.bounds.maxFileBytes})`)
    this.bytes += size
    if (this.bytes > this.bounds.maxTotalBytes) throw new Error(`its files are over skills.maxTotalBytes (${this.bounds.maxTotalBytes} bytes) together`)
  }
}

/**
 * Every file under a skill's folder, read now. A symbolic link is followed only to a file inside
 * the folder: a link out of it (or to a folder, which could loop) is refused, as is anything that
 * is neither file nor folder. Throws a sentence; the caller names the skill.
 */
export function readSkillFolder (dir: string, bounds: Bounds): SkillFiles {
  const root = realpathSync(dir)
  const tally = new Tally(bounds)
  const files = new Map<string, Buffer>()
  let folders = 0
  const walk = (folder: string): void => {
    // Folders hold no entry of the manifest, but a tree of empty ones must not be walked forever either.
    if (++folders > bounds.maxEntries) throw new Error(`it holds more than ${bounds.maxEntries} folders (skills.maxEntries)`)
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name)
      const rel = relative(root, path).split(sep).join('/')
      const entry = lstatSync(path)
      if (entry.isDirectory()) {
        walk(path)
        continue
      }
      let real = path
      if (entry.isSymbolicLink()) {
        real = realpathSync(path)
        const inside = relative(root, real)
        if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) throw new Error(`${rel} links outside the skill's folder`)
      }
      const target = real === path ? entry : statSync(real)
      if (!target.isFile()) throw new Error(`${rel} is not a regular file${entry.isSymbolicLink() ? ' (links to folders are not followed)' : ''}`)
      tally.add(rel, target.size)
      files.set(rel, readFileSync(real))
    }
  }
  walk(root)
  return files
}

/**
 * A skill given in memory: each path checked to stay inside the skill (no `..`, `.` or empty
 * segment, no absolute path or backslash), text encoded as UTF-8, bytes copied.
 */
export function skillFilesOf (input: Readonly<Record<string, unknown>>, bounds: Bounds): SkillFiles {
  const tally = new Tally(bounds)
  const files = new Map<string, Buffer>()
  for (const path of Object.keys(input).sort()) {
    const segments = path.split('/')
    if (path.includes('\\') || path.includes('\0') || segments.some((segment) => segment === '' || segment === '.' || segment === '..')) {
      throw new Error(`file path ${JSON.stringify(path)} must be relative to the skill's root, with no empty, "." or ".." segment`)
    }
    const content = input[path]
    let bytes: Buffer
    if (typeof content === 'string') bytes = Buffer.from(content, 'utf8')
    else if (content instanceof Uint8Array) bytes = Buffer.from(content)
    else throw new Error(`file ${path} must be a string or a Uint8Array`)
    tally.add(path, bytes.length)
    files.set(path, bytes)
  }
  return files
}
