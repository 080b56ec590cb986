// The tests' TypeScript loader (test/ts-loader/), as every test process and child uses it: a real
// node process started with the node argument tap.yml names.
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

const REGISTER = fileURLToPath(new URL('./register.mjs', import.meta.url))

function run (file: string): { status: number | null, stdout: string, stderr: string } {
  const { status, stdout, stderr } = spawnSync(process.execPath, [`--import=${REGISTER}`, file], { encoding: 'utf8', timeout: 30_000 })
  return { status, stdout, stderr }
}

t.test('a .ts file runs with its types erased; `./x.js` names the sibling x.ts', async (t) => {
  const dir = t.testdir({
    'main.ts': "import { twice } from './twice.js'\nconst n: number = twice(21)\nconsole.log('answer', n)\n",
    'twice.ts': 'export const twice = (n: number): number => n * 2\n'
  })
  const { status, stdout, stderr } = run(join(dir, 'main.ts'))
  t.equal(stderr, '')
  t.equal(stdout, 'answer 42\n')
  t.equal(status, 0)
})

t.test('a .ts file that does not parse fails with its path and line, every time it is loaded', async (t) => {
  const dir = t.testdir({ 'broken.ts': 'const x: number = (\nexport {}\n' })
  for (const attempt of ['first', 'second (nothing kept from the first)']) {
    const { status, stderr } = run(join(dir, 'broken.ts'))
    t.not(status, 0, `${attempt}: the process fails`)
    t.match(stderr, /SyntaxError.*broken\.ts:2: Expression expected/, `${attempt}: the error names the file and line`)
  }
})
