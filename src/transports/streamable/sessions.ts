import { randomUUID } from 'node:crypto'
import type { FastifyRequest } from 'fastify'
import { ForeignSessionError, UnknownSessionError } from '../../errors.js'
import type { ProtocolServer } from '../../protocol/protocol-server.js'
import { samePrincipal } from '../../protocol/principal.js'
import { Session } from '../../protocol/session.js'
import { clientOf } from '../http/caller.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import type { SessionDirectory, StreamableEntry, StreamableTable } from '../scale-out/directory.js'
import type { StreamResources } from './event-ids.js'
import { checkProtocolVersion, requireSessionId } from './headers.js'

/**
 * The sessions of one Streamable HTTP endpoint: opened here, found by the id a request names, gone
 * as they close. Only sessions opened on this endpoint: a legacy SSE session id is unknown here.
 * A session this table does not hold is the directory's to find (scale-out: rebuilt from its
 * record) or to refuse.
 */
export class StreamableSessions implements StreamableTable {
  readonly env: StreamResources
  private readonly core: ProtocolServer
  private readonly http: HttpPlumbing
  private readonly directory: SessionDirectory
  private readonly sessions = new Map<string, StreamableEntry>()

  constructor (core: ProtocolServer, http: HttpPlumbing, directory: SessionDirectory, options: { maxQueuedBytes: number }) {
    this.core = core
    this.http = http
    this.directory = directory
    this.env = {
      store: directory.events,
      streams: http.streams,
      maxQueuedBytes: options.maxQueuedBytes,
      onStoreError: directory.eventsFailed
    }
  }

  get (id: string): StreamableEntry | undefined {
    return this.sessions.get(id)
  }

  add (entry: StreamableEntry): void {
    const { session } = entry
    this.sessions.set(session.id, entry)
    session.onClose(() => { this.sessions.delete(session.id) })
  }

  /** A new session for `request`'s client (503 when the server is full, 429 past the client's share); not in the table before {@link add}. */
  open (request: FastifyRequest): StreamableEntry {
    const client = this.http.limits.checkRoom(request)
    const channel = this.directory.channel(this.env)
    const session = new Session(randomUUID(), channel, request.mcpPrincipal)
    session.client = client
    channel.bind(session)
    // Counted at once (capacity), but a 'new' session receives no broadcast.
    this.core.addSession(session, request.raw)
    this.http.limits.track(session, client)
    return { session, channel }
  }

  /** The session a request names: 400 without an id, 404 unknown or ended, 403 someone else's. */
  async lookup (request: FastifyRequest): Promise<StreamableEntry> {
    const id = requireSessionId(request)
    // Too long to be one of ours: unknown wherever it is asked.
    if (id === undefined) throw new UnknownSessionError()
    const held = this.sessions.get(id)
    const entry = held !== undefined && !this.directory.evictIfIdle(held.session) ? held : await this.directory.missing(id, this)
    if (!samePrincipal(entry.session.principal, request.mcpPrincipal)) throw new ForeignSessionError()
    checkProtocolVersion(request)
    // The client came back with its session id: initialization is complete.
    this.http.limits.established(entry.session)
    // A copy rebuilt from its record (scale-out) counts what it keeps against the client asking.
    entry.session.client ??= clientOf(request)
    entry.session.lastActivity = Date.now()
    this.directory.used(entry.session)
    return entry
  }
}
