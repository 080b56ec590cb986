// --import this: every module the process loads is appended to $LOADED_LOG (its URL), by a
// loader hook running beside the main thread.
import { register } from 'node:module'

register('./hooks.mjs', import.meta.url)
