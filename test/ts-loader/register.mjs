// Runs the TypeScript sources in every test process and in the children the tests spawn, named in
// tap.yml as `node-arg: --import=./test/ts-loader/register.mjs` (tap's own TypeScript plugin, ts-node, is
// switched off there). Why our own: see hooks.mjs.
import { register } from 'node:module'

register('./hooks.mjs', import.meta.url)

// Children get this loader by spawning `node ...process.execArgv`. tap passes it with a path relative
// to the project root, which a child started in another directory (the CLI's tests) could not find:
// the children are handed its absolute URL instead.
const RELATIVE = /^--import=\.{1,2}\/.*ts-loader\/register\.mjs$/
const at = process.execArgv.findIndex((argument) => RELATIVE.test(argument))
if (at !== -1) process.execArgv[at] = `--import=${import.meta.url}`
