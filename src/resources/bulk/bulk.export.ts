/**
 * CSV exports of a phonebook and of a DNC list, in constant memory: the rows are read in
 * windows of ids (`id > a and id <= a + WINDOW`) between the list's lowest and highest id. A
 * plain keyset (`id > a order by id limit n`) would, with no (phonebook_id, id) index, sort the
 * rest of the list at every batch; a window of the primary key costs the same whatever is left.
 * The contact export re-imports as it is: `additional_vars` holds the JSON object, and the
 * import reads `status` back (and drops the quote src/http/csv.ts puts before formula-like cells).
 * The rows are handed on in batches; src/http/csv.ts writes them as CSV.
 */
import { and, asc, eq, gt, lte, max, min, type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/database.ts';
import { contacts, dncContacts } from '../../db/schema.ts';
import type { CsvCell } from '../../http/csv.ts';

const WINDOW_IDS = 5_000;
/**
 * Rows per batch (one CSV string): a string past ~128 KB goes to V8's large-object space,
 * freed only by a full collection, so window-sized strings would pile up between collections.
 */
const ROWS_PER_CHUNK = 500;

export const CONTACT_EXPORT_HEADER = ['contact', 'full_name', 'status', 'additional_vars'] as const;

/** The ids from the list's first to its last, a window at a time: `[after, upTo]`. */
async function* idWindows(db: Db, table: PgTable, id: PgColumn, inList: SQL): AsyncGenerator<[number, number]> {
  const [bounds] = await db.select({ lo: min(id), hi: max(id) }).from(table).where(inList);
  if (bounds?.lo == null || bounds.hi == null) return;
  for (let after = Number(bounds.lo) - 1; after < Number(bounds.hi); after += WINDOW_IDS) yield [after, after + WINDOW_IDS];
}

function* inChunks(rows: CsvCell[][]): Generator<CsvCell[][]> {
  for (let at = 0; at < rows.length; at += ROWS_PER_CHUNK) yield rows.slice(at, at + ROWS_PER_CHUNK);
}

/** The phonebook's contacts (CONTACT_EXPORT_HEADER's columns), in batches of rows. */
export async function* exportContacts(db: Db, phonebookId: number): AsyncGenerator<CsvCell[][]> {
  const inList = eq(contacts.phonebook_id, phonebookId);
  for await (const [after, upTo] of idWindows(db, contacts, contacts.id, inList)) {
    const rows = await db
      .select({
        contact: contacts.contact,
        full_name: contacts.full_name,
        status: contacts.status,
        vars: sql<string>`${contacts.additional_vars}::text`,
      })
      .from(contacts)
      .where(and(inList, gt(contacts.id, after), lte(contacts.id, upTo)))
      .orderBy(asc(contacts.id));
    yield* inChunks(rows.map((r) => [r.contact, r.full_name, String(r.status), r.vars]));
  }
}

export const DNC_EXPORT_HEADER = ['phone_number'] as const;

/** The DNC list's numbers (DNC_EXPORT_HEADER's column), in batches of rows. */
export async function* exportDncNumbers(db: Db, dncId: number): AsyncGenerator<CsvCell[][]> {
  const inList = eq(dncContacts.dnc_id, dncId);
  for await (const [after, upTo] of idWindows(db, dncContacts, dncContacts.id, inList)) {
    const rows = await db
      .select({ phone_number: dncContacts.phone_number })
      .from(dncContacts)
      .where(and(inList, gt(dncContacts.id, after), lte(dncContacts.id, upTo)))
      .orderBy(asc(dncContacts.id));
    yield* inChunks(rows.map((r) => [r.phone_number]));
  }
}
