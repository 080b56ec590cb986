// The loader hook of record.mjs: notes each module's URL as it is loaded, then loads it as usual.
import { appendFileSync } from 'node:fs'

export async function load (url, context, nextLoad) {
  appendFileSync(process.env.LOADED_LOG, url + '\n')
  return await nextLoad(url, context)
}
