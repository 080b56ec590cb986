import { watch, readdirSync, statSync, type FSWatcher } from 'node:fs'
import { join } from 'node:path'

/** Folders never watched: dependencies, VCS data, build and test caches. */
const IGNORED_DIRS = new Set(['node_modules', '.git', 'coverage', '.tap', '.nyc_output'])
/** A project larger than this is not watched past it (each folder costs an inotify watch). */
const MAX_DIRS = 2000

/** Editors' temporary files: a save touches them, but they are not the change. */
function isNoise (name: string): boolean {
  return name.startsWith('.') || name.endsWith('~') || name.endsWith('.swp') || name.endsWith('.tmp') || /^\d+$/.test(name)
}

export interface TreeWatcher {
  close: () => void
}

/**
 * Calls `onChange` with the path of every file created, changed or removed under `root`. One
 * `fs.watch` per folder rather than `recursive: true`, which cannot leave out `node_modules`
 * (tens of thousands of folders in a real project); folders created later are watched as they
 * appear, removed ones are let go.
 */
export function watchTree (root: string, onChange: (path: string) => void): TreeWatcher {
  const watchers = new Map<string, FSWatcher>()
  const add = (dir: string): void => {
    if (watchers.has(dir) || watchers.size >= MAX_DIRS) return
    let watcher: FSWatcher
    try {
      watcher = watch(dir, (_event, filename) => {
        if (filename === null || isNoise(filename)) return
        const path = join(dir, filename)
        if (isDirectory(path)) {
          if (!IGNORED_DIRS.has(filename)) addTree(path)
        } else if (watchers.has(path)) drop(path)
        onChange(path)
      })
    } catch {
      // Gone, or not readable: nothing to watch there.
      return
    }
    watcher.on('error', () => { drop(dir) })
    watchers.set(dir, watcher)
  }
  const drop = (dir: string): void => {
    for (const [path, watcher] of watchers) {
      if (path === dir || path.startsWith(dir + '/') || path.startsWith(dir + '\\')) {
        watcher.close()
        watchers.delete(path)
      }
    }
  }
  const addTree = (dir: string): void => {
    add(dir)
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      if (entry.isDirectory() && !IGNORED_DIRS.has(entry.name) && !entry.name.startsWith('.')) addTree(join(dir, entry.name))
    }
  }
  addTree(root)
  return {
    close: () => {
      for (const watcher of watchers.values()) watcher.close()
      watchers.clear()
    }
  }
}

function isDirectory (path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
