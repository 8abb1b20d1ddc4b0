/**
 * One error type for every HTTP failure, and the one error handler that turns anything thrown
 * into the DRF-shaped bodies of contract §2. A 500 logs the error and shows no stack.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { fromMultipartLimit } from './multipart.ts';

export type FieldErrors = Record<string, string[]>;

export class AppError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body.detail === 'string' ? body.detail : JSON.stringify(body));
  }
}

export const notFound = (detail = 'Not found.') => new AppError(404, { detail });
export const invalid = (errors: FieldErrors) => new AppError(400, errors);
export const forbidden = () => new AppError(403, { detail: 'You do not have permission to perform this action.' });
export const conflict = (detail: string) => new AppError(409, { detail });
export const methodNotAllowed = (method: string) => new AppError(405, { detail: `Method "${method}" not allowed.` });
/**
 * 401. `challenge` false leaves out `WWW-Authenticate: Basic`, which makes a browser open its
 * own login dialog over the console's page (http/auth.ts decides when).
 */
export const unauthorized = (detail = 'Authentication credentials were not provided.', challenge = true) =>
  new AppError(401, { detail }, challenge ? { 'www-authenticate': 'Basic realm="api"' } : {});
export const tooManyRequests = (retryAfterSeconds: number) =>
  new AppError(
    429,
    { detail: `Request was throttled. Expected available in ${retryAfterSeconds} seconds.` },
    { 'retry-after': String(retryAfterSeconds) },
  );

type DatabaseError = { code?: string; detail?: string; constraint?: string; cause?: unknown };

/** Maps PostgreSQL constraint errors that reach the handler to 400/409 bodies. */
function fromDatabase(error: DatabaseError): AppError | undefined {
  // Drizzle wraps the driver's error ("Failed query: …"); the PostgreSQL code is on its cause.
  const err = (error.code === undefined && error.cause ? error.cause : error) as DatabaseError;
  switch (err.code) {
    case '23505':
      return invalid({ non_field_errors: [`A record with these values already exists.${err.detail ? ` ${err.detail}` : ''}`] });
    case '23503':
    case '23001': // PostgreSQL 18 reports an ON DELETE RESTRICT refusal as restrict_violation
      return conflict('This record is referenced by another record, or refers to one that does not exist.');
    case '22003':
      return invalid({ non_field_errors: ['A number is out of range.'] });
    default:
      return undefined;
  }
}

/** Translates Fastify's own errors (body parsing, limits, validation) to the contract's bodies. */
function fromFastify(err: FastifyError): AppError | undefined {
  switch (err.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_INVALID_MULTIPART_CONTENT_TYPE':
      return new AppError(415, { detail: `Unsupported media type in request. Send application/json.` });
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
    case 'FST_REQ_FILE_TOO_LARGE':
      return new AppError(413, { detail: 'Request body is too large.' });
    case 'FST_PARTS_LIMIT':
    case 'FST_FILES_LIMIT':
    case 'FST_FIELDS_LIMIT':
    case 'FST_PROTO_VIOLATION':
      return fromMultipartLimit(err.code); // too many parts is a malformed upload (400), not a large one
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError(400, { detail: `JSON parse error - ${err.message}` });
  }
  if (err.validation) {
    const errors: FieldErrors = {};
    for (const v of err.validation) {
      const field =
        (v.params as { missingProperty?: string }).missingProperty ??
        (v.instancePath.replace(/^\//, '').split('/')[0] || 'non_field_errors');
      (errors[field] ??= []).push(v.keyword === 'required' ? 'This field is required.' : (v.message ?? 'Invalid value.'));
    }
    return invalid(errors);
  }
  if (err.statusCode === 413) return new AppError(413, { detail: 'Request body is too large.' });
  if (err.statusCode === 415) return new AppError(415, { detail: 'Unsupported media type in request.' });
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
    return new AppError(err.statusCode, { detail: err.message });
  }
  return undefined;
}

export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known =
      error instanceof AppError ? error : (fromDatabase(error as never) ?? fromFastify(error));
    if (known) {
      if (known.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      return reply.code(known.statusCode).headers(known.headers).send(known.body);
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply.code(500).send({ detail: 'Internal server error.' });
  });
  app.setNotFoundHandler((_request, reply) => reply.code(404).send({ detail: 'Not found.' }));
}

/** Node's client error codes → status, reason phrase, detail. */
const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'Request timeout.'],
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'Request header fields too large (16 KB at most).'],
};

/**
 * Answers what Node's HTTP parser rejects before Fastify sees a request (a URL or headers over
 * 16 KB, a malformed request line) with the contract's `{"detail": …}` body instead of
 * Fastify's default `{"error", "message", "statusCode"}`.
 */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: import('node:net').Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, detail] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'Bad Request', 'Malformed HTTP request.'];
  const body = JSON.stringify({ detail });
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${reason}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy(err);
}
