import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { InvalidMessageError, StreamConflictError } from '../../errors.js'
import type { HttpPlumbing } from '../http/plumbing.js'
import type { SessionDirectory } from '../scale-out/directory.js'
import type { StreamableChannel } from './channel.js'
import { lastEventIdOf, requireGetAccept } from './headers.js'
import type { StreamableSessions } from './sessions.js'

/**
 * GET: the session's standalone stream (stream 0: server messages that belong to no request), or
 * the resumption of any of its streams after the client's `Last-Event-ID`. A stream this instance
 * does not write itself is the directory's (scale-out: stream 0 held by another instance, a
 * request stream of another executor).
 */
export class StreamableGet {
  private readonly sessions: StreamableSessions
  private readonly http: HttpPlumbing
  private readonly directory: SessionDirectory

  constructor (sessions: StreamableSessions, http: HttpPlumbing, directory: SessionDirectory) {
    this.sessions = sessions
    this.http = http
    this.directory = directory
  }

  async listen (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    requireGetAccept(request)
    const entry = await this.sessions.lookup(request)
    const { channel } = entry
    const lastEventId = lastEventIdOf(request)
    if (lastEventId !== undefined) return await (this.directory.resumeElsewhere(request, reply, entry, lastEventId) ?? this.resume(request, reply, channel, lastEventId))
    if (channel.hasStandalone) throw new StreamConflictError('this session already has a GET stream open')
    const elsewhere = this.directory.openStream0(request, reply, entry)
    if (elsewhere !== undefined) return await elsewhere
    reply.hijack()
    // Gone before we got here: no 'close' would ever come to free the stream slot.
    if (reply.raw.socket === null || reply.raw.socket.destroyed) return reply
    channel.openStandalone(reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
    // A GET stream ends with its token; the session does not: the client reopens the stream with a fresh one.
    this.http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }

  /** The events after `lastEventId` from the store, then the stream live (400 when the id is not one of the session's). */
  private async resume (request: FastifyRequest, reply: FastifyReply, channel: StreamableChannel, lastEventId: string): Promise<FastifyReply> {
    const plan = await channel.planResume(lastEventId)
    if (plan === undefined) throw new InvalidMessageError('Last-Event-ID is not an event this session can replay')
    reply.hijack()
    channel.resume(plan, reply.raw, reply.getHeaders() as OutgoingHttpHeaders)
    this.http.endWithCredential(request, reply.raw, () => { reply.raw.end() })
    return reply
  }
}
