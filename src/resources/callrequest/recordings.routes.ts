/**
 * A call's recordings (issue 16 item 6): `GET /rest-api/callrequest/<id>/recordings/` lists them
 * (a record section's message, `kind` "message"; the whole call with the campaign's
 * record_calls, "call"); `…/recordings/<rid>/download/` streams one, with Range. Visible as the
 * call is (another user's → 404).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { type AppDeps, type Api, recordId } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { linker } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { isoTime } from '../../http/present.ts';
import { sendFileRange } from '../../http/range.ts';
import { findCallRequest } from './callrequest.repository.ts';
import { countRecordings, findRecording, listRecordings, type RecordingRow } from './recordings.repository.ts';

const tags = ['callrequest'];

export const RecordingRecord = Type.Object({
  id: Type.Integer(),
  callrequest: Type.String({ format: 'uri' }),
  kind: Type.String({ description: '"call" (the whole call, campaign record_calls) or "message" (a record section)' }),
  seconds: Type.Integer(),
  download: Type.String({ format: 'uri' }),
  created_date: Type.String({ format: 'date-time' }),
});

/** The download URL of a recording (also the CDR CSV's `recording` column). */
export function recordingUrl(request: FastifyRequest, callrequestId: number, id: number): string {
  return `${linker(request)('callrequest', callrequestId)}recordings/${id}/download/`;
}

/** A recording of the call `callrequestId` (only a call's own are listed). */
function present(request: FastifyRequest, callrequestId: number, row: RecordingRow) {
  return {
    id: row.id,
    callrequest: linker(request)('callrequest', callrequestId) as string,
    kind: row.kind,
    seconds: row.seconds,
    download: recordingUrl(request, callrequestId, row.id),
    created_date: isoTime(row.created_date) as string,
  };
}

/** The `:rid` of a recording's path, as recordId reads `:id`. */
function recordingId(request: FastifyRequest): number {
  const raw = (request.params as { rid?: string }).rid ?? '';
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw notFound();
  return Number(raw);
}

export function recordingRoutes(api: Api, { database, config }: AppDeps): void {
  const { db } = database;

  api.get('/callrequest/:id/recordings/', { schema: { tags, response: { 200: envelopeOf(RecordingRecord) } } }, async (request) => {
    const call = await findCallRequest(db, request.user, recordId(request));
    if (!call) throw notFound();
    return paginate(
      request,
      () => countRecordings(db, call.id),
      (limit, offset) => listRecordings(db, call.id, limit, offset),
      (row) => present(request, call.id, row),
    );
  });

  api.get('/callrequest/:id/recordings/:rid/download/', { schema: { tags } }, async (request, reply) => {
    const call = await findCallRequest(db, request.user, recordId(request));
    const row = call && (await findRecording(db, call.id, recordingId(request)));
    if (!row) throw notFound();
    const root = path.resolve(config.dataDir);
    const file = path.resolve(root, row.file);
    const stat = file.startsWith(root + path.sep) ? await fs.promises.stat(file).catch(() => undefined) : undefined;
    if (!stat?.isFile()) throw notFound(); // deleted by retention, or never written
    return sendFileRange(request, reply, file, stat.size, 'audio/wav', path.basename(file));
  });
}
