// Module hooks that run the .ts files of src/, test/ and examples/ without a build (transpile.mjs).
//
// Why not tap's TypeScript plugin (ts-node) or tsx: on Node 20 module hooks run on a thread of their
// own and every module load is a round trip to it. ts-node's hooks (and tap's mock hooks behind
// them) cost ~0.6 s of CPU per process before the first test ran, even with its transpile cached;
// over ~130 test files and their stdio children that was a fifth of `npm test`. tsx measured no
// better under tap. These hooks pass everything but .ts files straight on, and on a cache hit do no
// work but a read.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { transpiled } from './transpile.mjs'

const isTypeScript = (url) => url.startsWith('file:') && new URL(url).pathname.endsWith('.ts')

/** `./x.js` written in a .ts file means `./x.ts` when that exists, as TypeScript resolves it. */
export async function resolve (specifier, context, nextResolve) {
  const { parentURL } = context
  if (parentURL !== undefined && isTypeScript(parentURL) && /^\.{1,2}\/.*\.js$/.test(specifier)) {
    const source = new URL(`${specifier.slice(0, -3)}.ts`, parentURL)
    if (existsSync(source)) return { url: source.href, format: 'module', shortCircuit: true }
  }
  return nextResolve(specifier, context)
}

export async function load (url, context, nextLoad) {
  if (!isTypeScript(url)) return nextLoad(url, context)
  return { format: 'module', source: transpiled(fileURLToPath(url)), shortCircuit: true }
}
