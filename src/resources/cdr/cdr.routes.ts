/**
 * /rest-api/cdr/ — call detail records (read-only). `?format=csv` streams the same filter as a
 * CSV export in keyset batches, so an export of millions of rows runs in constant memory.
 */
import { and, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { cdrs, LegType } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { csvChunks, csvOptionsOf, sendCsv } from '../../http/csv.ts';
import { notFound } from '../../http/errors.ts';
import { queryDate, queryInteger, queryText } from '../../http/filters.ts';
import { normalizePhone } from '../../http/phone.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { readCampaignDate } from '../campaigns/campaign.dates.ts';
import { CSV_COLUMNS, CdrRecord, cdrCsvRow, presentCdr } from './cdr.present.ts';
import { recordingUrl } from '../callrequest/recordings.routes.ts';
import { countCdrs, findCdr, listCdrs, listCdrsAfter, recordingOfCalls, visibleCdrs } from './cdr.repository.ts';

const tags = ['cdr'];
const BATCH = 1000;

/** The filters campaign_id, phone_number, disposition, starting_date__gte/__lte (every one read before any row). */
function filters(db: Db, request: FastifyRequest, timeZone: string): SQL | undefined {
  const conditions: (SQL | undefined)[] = [visibleCdrs(db, request.user)];
  const campaignId = queryInteger(request, 'campaign_id');
  if (campaignId !== undefined) conditions.push(eq(cdrs.campaign_id, campaignId));
  const phone = queryText(request, 'phone_number');
  if (phone !== undefined) conditions.push(eq(cdrs.phone_number, normalizePhone(phone) ?? phone));
  const disposition = queryText(request, 'disposition');
  if (disposition !== undefined) conditions.push(eq(cdrs.disposition, disposition.toUpperCase()));
  const readDate = (text: string) => readCampaignDate(text, timeZone);
  for (const [name, op] of [['starting_date__gte', gte], ['starting_date__lte', lte]] as const) {
    const date = queryDate(request, name, readDate);
    if (date) conditions.push(op(cdrs.starting_date, date.toISOString()));
  }
  return and(...conditions);
}

function routes(api: Api, { database, config }: AppDeps) {
  const { db } = database;

  api.get('/cdr/', { schema: { tags, response: { 200: envelopeOf(CdrRecord) } } }, async (request, reply) => {
    const where = filters(db, request, config.timeZone);
    if ((request.query as { format?: string }).format === 'csv') {
      // Read before the 200 starts: a bad option is a 400, and a query that fails on the first
      // batch is an error answer, never a stream cut after its header (see startedStream).
      const options = csvOptionsOf(request, '\r\n');
      async function* batches() {
        for (let after = 0; ; ) {
          const rows = await listCdrsAfter(db, where, after, BATCH);
          const aLegCalls = rows.filter((r) => r.leg_type === LegType.A && r.callrequest_id !== null).map((r) => r.callrequest_id as number);
          const recorded = await recordingOfCalls(db, aLegCalls);
          yield rows.map((r) => {
            const rec = r.leg_type === LegType.A && r.callrequest_id !== null ? recorded.get(r.callrequest_id) : undefined;
            return cdrCsvRow(r, rec === undefined ? '' : recordingUrl(request, r.callrequest_id as number, rec));
          });
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
