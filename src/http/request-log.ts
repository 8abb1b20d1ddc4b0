/**
 * Fastify's per-request log lines, one level down: "incoming request" and "request completed"
 * are written at `debug`, not `info`. At the default level the log then holds the service's
 * events, warnings and errors (a request that fails is still logged, as an error); LOG_LEVEL=debug
 * adds a line per request in and out. Two JSON lines per request cost a cached authenticated GET
 * about a third of its CPU time (issue 2 §10).
 */
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';

export class RequestLogAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (!this.isLogDisabled(request)) request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) return super.requestCompleted(error, request, reply);
    if (!this.isLogDisabled(request)) reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
