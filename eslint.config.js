// neostandard (the style of Fastify's own packages) with TypeScript, on everything we write.
import neostandard from 'neostandard'

export default [
  ...neostandard({
    ts: true,
    ignores: ['dist/**', 'coverage/**', '.tap/**', 'tools/**', 'benchmarks/.tmp/**']
  }),
  {
    rules: {
      // `void promise;` marks a promise deliberately left floating (errors handled inside it).
      'no-void': ['error', { allowAsStatement: true }]
    }
  }
]
