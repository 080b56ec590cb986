import { constants } from 'node:fs'
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { isRecord } from '../util/is-record.js'

/** A host's file that cannot be merged into safely: said, and the file left exactly as it was. */
export class ConfigRefusedError extends Error {
  constructor (message: string) {
    super(message)
    this.name = 'ConfigRefusedError'
  }
}

export interface MergeResult {
  /** The file did not exist and was created. */
  created: boolean
  /** Where the previous content was copied, before anything was written. */
  backup: string | undefined
  /** An entry of that name was there and was replaced. */
  replaced: boolean
}

/**
 * Puts `entry` under `key.name` in a host's JSON file, keeping everything else (other servers,
 * the host's own settings) as it was. An existing file is copied beside itself first
 * (`<file>.<timestamp>.bak`); the new content is written to a temporary file and renamed over
 * the old one, so a crash leaves one or the other, never half of each. A file that is not a JSON
 * object, or whose `key` is not an object, is refused and not touched.
 */
export async function mergeServer (file: string, key: string, name: string, entry: Record<string, unknown>, now = new Date()): Promise<MergeResult> {
  let text: string | undefined
  try {
    text = await readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  let config: Record<string, unknown> = {}
  if (text !== undefined && text.trim() !== '') {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch (error) {
      throw new ConfigRefusedError(`${file} is not valid JSON (${(error as Error).message}; comments are not supported): it was left untouched. Fix it, or add the entry by hand.`)
    }
    if (!isRecord(parsed)) throw new ConfigRefusedError(`${file} does not hold a JSON object: it was left untouched`)
    config = parsed
  }
  const servers = config[key]
  if (servers !== undefined && !isRecord(servers)) throw new ConfigRefusedError(`"${key}" in ${file} is not an object: the file was left untouched`)
  const replaced = servers !== undefined && Object.hasOwn(servers, name)
  // In place: the file's own key order survives.
  config[key] = { ...servers, [name]: entry }

  let backup: string | undefined
  let mode: number | undefined
  if (text === undefined) {
    await mkdir(dirname(file), { recursive: true })
  } else {
    mode = (await stat(file)).mode & 0o777
    backup = `${file}.${now.toISOString().replace(/[:.]/g, '-')}.bak`
    // Never over an earlier backup.
    await copyFile(file, backup, constants.COPYFILE_EXCL)
  }
  const temporary = `${file}.${process.pid}.tmp`
  try {
    await writeFile(temporary, JSON.stringify(config, null, 2) + '\n', { mode: mode ?? 0o644 })
    await rename(temporary, file)
  } catch (error) {
    await rm(temporary, { force: true })
    throw error
  }
  return { created: text === undefined, backup, replaced }
}
