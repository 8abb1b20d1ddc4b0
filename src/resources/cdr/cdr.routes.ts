/**
 * /rest-api/cdr/ — call detail records (read-only). `?format=csv` streams the same filter as a
 * CSV export in keyset batches, so an export of millions of rows runs in constant memory.
 */
import { and, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { cdrs } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { csvChunks, csvOptionsOf, sendCsv } from '../../http/csv.ts';
import { invalid, notFound } from '../../http/errors.ts';
import { normalizePhone } from '../../http/phone.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { parseCampaignDate } from '../campaigns/campaign.dates.ts';
import { CSV_COLUMNS, CdrRecord, cdrCsvRow, presentCdr } from './cdr.present.ts';
import { countCdrs, findCdr, listCdrs, listCdrsAfter, visibleCdrs } from './cdr.repository.ts';

const tags = ['cdr'];
const BATCH = 1000;

/** The filters campaign_id, phone_number, disposition, starting_date__gte/__lte. */
function filters(db: Db, request: FastifyRequest, timeZone: string): SQL | undefined {
  const q = request.query as Record<string, string | undefined>;
  const conditions: (SQL | undefined)[] = [visibleCdrs(db, request.user)];
  const errors: Record<string, string[]> = {};
  if (q.campaign_id) {
    if (/^\d{1,9}$/.test(q.campaign_id)) conditions.push(eq(cdrs.campaign_id, Number(q.campaign_id)));
    else errors.campaign_id = ['Enter a whole number.'];
  }
  if (q.phone_number) conditions.push(eq(cdrs.phone_number, normalizePhone(q.phone_number) ?? q.phone_number));
  if (q.disposition) conditions.push(eq(cdrs.disposition, q.disposition.toUpperCase()));
  for (const [name, op] of [['starting_date__gte', gte], ['starting_date__lte', lte]] as const) {
    const raw = q[name];
    if (!raw) continue;
    const date = parseCampaignDate(raw, timeZone);
    if (date) conditions.push(op(cdrs.starting_date, date.toISOString()));
    else errors[name] = ['Enter a valid date/time.'];
  }
  if (Object.keys(errors).length) throw invalid(errors);
  return and(...conditions);
}

function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;

  api.get('/cdr/', { schema: { tags, response: { 200: envelopeOf(CdrRecord) } } }, async (request, reply) => {
    const where = filters(db, request, config.timeZone);
    if ((request.query as { format?: string }).format === 'csv') {
      // Read before the 200 starts: a bad option is a 400, never a cut stream.
      const options = csvOptionsOf(request, '\r\n');
      async function* batches() {
        for (let after = 0; ; ) {
          const rows = await listCdrsAfter(db, where, after, BATCH);
          yield rows.map(cdrCsvRow);
          if (rows.length < BATCH) break;
          after = rows[rows.length - 1].id;
        }
      }
      return sendCsv(reply, 'cdr', csvChunks(CSV_COLUMNS, batches(), options));
    }
    return paginate(
      request,
      () => countCdrs(db, where),
      (limit, offset) => listCdrs(db, where, limit, offset),
      (row) => presentCdr(request, row),
    );
  });

  api.get('/cdr/:id/', { schema: { tags, response: { 200: CdrRecord } } }, async (request) => {
    const row = await findCdr(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentCdr(request, row);
  });
}

export const cdrResource: Resource = { name: 'cdr', routes };
