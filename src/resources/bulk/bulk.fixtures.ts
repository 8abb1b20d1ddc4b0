/** Test fixtures of the bulk import: what a list holds, multipart uploads (its phonebooks and DNC lists: test/factories.ts). */
import type { FastifyInstance } from 'fastify';
import { asc, eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { contacts, dncContacts } from '../../db/schema.ts';
import { unique } from '../../../test/factories.ts';

export function contactsOf(db: Db, phonebookId: number) {
  return db
    .select({ contact: contacts.contact, full_name: contacts.full_name, status: contacts.status, additional_vars: contacts.additional_vars })
    .from(contacts)
    .where(eq(contacts.phonebook_id, phonebookId))
    .orderBy(asc(contacts.id));
}

export async function dncNumbersOf(db: Db, dncId: number): Promise<string[]> {
  const rows = await db.select().from(dncContacts).where(eq(dncContacts.dnc_id, dncId)).orderBy(asc(dncContacts.id));
  return rows.map((r) => r.phone_number);
}

/** A multipart/form-data body built by hand: the form fields, then the CSV in `file`. */
export function multipartBody(file: string | Buffer, fields: Record<string, string> = {}) {
  const boundary = `----bulk${unique()}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
  );
  parts.push(
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="import.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.from(file),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  );
  return { payload: Buffer.concat(parts), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** POSTs `file` to an import URL; returns the response with `data` parsed. */
export async function upload(app: FastifyInstance, auth: string, url: string, file: string | Buffer, fields: Record<string, string> = {}) {
  const { payload, headers } = multipartBody(file, fields);
  const res = await app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: auth } });
  return Object.assign(res, { data: JSON.parse(res.body || 'null') });
}
