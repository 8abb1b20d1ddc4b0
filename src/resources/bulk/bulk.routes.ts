/**
 * Bulk import and export of contacts and DNC numbers (issue 3), routed under the phonebook and
 * DNC list they belong to: POST …/<id>/import/ (multipart CSV in `file`) and GET …/<id>/export/.
 */
import { and, eq } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import { type Api, type AppDeps, recordId, type Resource } from '../../http/api.ts';
import { csvChunks, csvOptionsOf, sendCsv } from '../../http/csv.ts';
import { AppError, invalid, notFound } from '../../http/errors.ts';
import { readFileForm } from '../../http/multipart.ts';
import { ownedBy } from '../../http/scope.ts';
import type { Db } from '../../db/database.ts';
import { dncLists, phonebooks } from '../../db/schema.ts';
import type { AuthUser } from '../../http/auth.ts';
import { contactTarget, dncTarget, type ImportTarget } from './bulk.csv.ts';
import { CONTACT_EXPORT_HEADER, DNC_EXPORT_HEADER, exportContacts, exportDncNumbers } from './bulk.export.ts';
import { importCsv, ImportFileError } from './bulk.import.ts';

const TRUE_VALUES = new Set(['true', 'True', '1', 'yes', 'on']);

/** Whether the phonebook or DNC list `id` exists and `user` may see it (contract §3). */
async function isVisible(db: Db, table: typeof phonebooks | typeof dncLists, user: AuthUser, id: number): Promise<boolean> {
  const rows = await db.select({ id: table.id }).from(table).where(and(eq(table.id, id), ownedBy(user, table.user_id)));
  return rows.length > 0;
}

/** `skip_duplicates` from the query string or from a form field sent before the file. */
function skipDuplicates(request: FastifyRequest, fields: Record<string, string>): boolean {
  const fromQuery = (request.query as { skip_duplicates?: string }).skip_duplicates;
  return TRUE_VALUES.has(String(fromQuery ?? '')) || TRUE_VALUES.has(fields.skip_duplicates ?? '');
}

async function importUpload(request: FastifyRequest, deps: AppDeps, target: ImportTarget, id: number) {
  if (!request.isMultipart()) throw invalid({ file: ['No file was submitted.'] });
  const { fields, upload, rest } = await readFileForm(request, { fileSize: deps.config.maxImportBytes });
  if (!upload) throw invalid({ file: ['No file was submitted.'] });
  try {
    return await importCsv(deps.database, target, id, upload.file, {
      skipDuplicates: skipDuplicates(request, fields),
      defaultCountry: deps.config.defaultCountry,
      truncated: () => upload.file.truncated,
      rest, // a second file after this one refuses the import, before it commits
    });
  } catch (err) {
    if (!(err instanceof ImportFileError)) throw err;
    if (err.kind === 'too-large') throw new AppError(413, { detail: 'Request body is too large.' });
    throw invalid({ file: [err.message] });
  }
}

function routes(api: Api, deps: AppDeps) {
  const { db } = deps.database;
  const importSchema = { consumes: ['multipart/form-data'] };

  api.post('/phonebook/:id/import/', { config: { multipart: true }, schema: { tags: ['phonebook'], ...importSchema } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await isVisible(db, phonebooks, request.user, id))) throw notFound();
    return reply.code(201).send(await importUpload(request, deps, contactTarget, id));
  });

  api.get('/phonebook/:id/export/', { schema: { tags: ['phonebook'] } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await isVisible(db, phonebooks, request.user, id))) throw notFound();
    const csv = csvChunks(CONTACT_EXPORT_HEADER, exportContacts(db, id), csvOptionsOf(request));
    return sendCsv(reply, `phonebook-${id}`, csv);
  });

  // contract: /rest-api/dnc/ and /rest-api/dnc-list/ are the same resource, both routed.
  for (const prefix of ['dnc-list', 'dnc']) {
    api.post(`/${prefix}/:id/import/`, { config: { multipart: true }, schema: { tags: ['dnc'], ...importSchema } }, async (request, reply) => {
      const id = recordId(request);
      if (!(await isVisible(db, dncLists, request.user, id))) throw notFound();
      return reply.code(201).send(await importUpload(request, deps, dncTarget, id));
    });

    api.get(`/${prefix}/:id/export/`, { schema: { tags: ['dnc'] } }, async (request, reply) => {
      const id = recordId(request);
      if (!(await isVisible(db, dncLists, request.user, id))) throw notFound();
      return sendCsv(reply, `dnc-${id}`, csvChunks(DNC_EXPORT_HEADER, exportDncNumbers(db, id), csvOptionsOf(request)));
    });
  }
}

/** Routes only (listed: false): these paths live under the phonebook and DNC list resources. */
export const bulkResource: Resource = { name: 'bulk', listed: false, routes };
