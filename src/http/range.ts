/**
 * Serving a file with HTTP Range (RFC 9110 §14): `bytes=a-b`, `bytes=a-` and `bytes=-n` answer
 * 206 with that part and its Content-Range; a range past the end is 416 with `bytes *\/size`;
 * several ranges, or a header we do not read, answer the whole file (200), as the RFC allows.
 * Streamed from disk: the file is never read into memory.
 */
import fs from 'node:fs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from './errors.ts';

/** The one byte range asked for, 'whole' (no or unread header), or 'unsatisfiable'. */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'whole' | 'unsatisfiable' {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return 'whole';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

/** Sends `file` (a path that exists) as `type`, honouring the request's Range header. */
export function sendFileRange(request: FastifyRequest, reply: FastifyReply, file: string, size: number, type: string, filename: string): FastifyReply {
  const range = parseRange(request.headers.range, size);
  if (range === 'unsatisfiable') throw new AppError(416, { detail: 'Requested range not satisfiable.' }, { 'content-range': `bytes */${size}` });
  reply.type(type).header('accept-ranges', 'bytes').header('content-disposition', `attachment; filename="${filename}"`);
  if (range === 'whole') return reply.header('content-length', size).send(fs.createReadStream(file));
  return reply
    .code(206)
    .header('content-range', `bytes ${range.start}-${range.end}/${size}`)
    .header('content-length', range.end - range.start + 1)
    .send(fs.createReadStream(file, { start: range.start, end: range.end }));
}
