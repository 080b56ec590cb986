/** The part of a pino / Fastify logger the engine writes to (Fastify's `app.log` fits). */
export interface ScaleLogger {
  info: (fields: object, message: string) => void
  warn: (fields: object, message: string) => void
  error: (fields: object, message: string) => void
}
