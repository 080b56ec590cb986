// The zod that mcp-framework itself imports (its 3.x, nested under it here because the project's
// own zod is 4.x): its tools must be built with the very classes it checks with `instanceof`, as
// they are in an app that installs zod 3 beside it.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const fromFramework = createRequire(fileURLToPath(import.meta.resolve('mcp-framework')))
const root = dirname(fromFramework.resolve('zod/package.json'))
export const { z } = await import(pathToFileURL(join(root, 'index.js')).href)
