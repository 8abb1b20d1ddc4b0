/**
 * /rest-api/cdr/ — call detail records (read-only). `?format=csv` streams the same filter as a
 * CSV export in keyset batches, so an export of millions of rows runs in constant memory.
 */
import { and, eq, gte, lte, type SQL } from 'drizzle-orm';
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { cdrs } from '../../db/schema.ts';
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { queryDate, queryInteger, queryText } from '../../http/filters.ts';
import { normalizePhone } from '../../http/phone.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { startedStream } from '../../http/stream.ts';
import { readCampaignDate } from '../campaigns/campaign.dates.ts';
import { CSV_COLUMNS, CdrRecord, cdrCsvLine, presentCdr } from './cdr.present.ts';
import { countCdrs, findCdr, listCdrs, listCdrsAfter, visibleCdrs } from './cdr.repository.ts';

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
      async function* csv() {
        // The header goes out with the first batch: see startedStream.
        let rows = await listCdrsAfter(db, where, 0, BATCH);
        yield `${CSV_COLUMNS.join(',')}\r\n${rows.map(cdrCsvLine).join('')}`;
        while (rows.length === BATCH) {
          rows = await listCdrsAfter(db, where, rows[rows.length - 1].id, BATCH);
          yield rows.map(cdrCsvLine).join('');
        }
      }
      const body = await startedStream(csv());
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', 'attachment; filename="cdr.csv"')
        .send(body as never); // a stream is sent as is, not serialized
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
