/**
 * Rows the campaign tests need from other areas (gateways, surveys, phonebooks with contacts),
 * inserted directly with Drizzle so these tests do not depend on other resources' routes.
 */
import type { Db } from '../../db/database.ts';
import { contacts, gateways, phonebooks, sectionTemplates, surveyTemplates } from '../../db/schema.ts';
import { unique } from '../../../test/factories.ts';

export async function makeGateway(db: Db, status = 1): Promise<number> {
  const [row] = await db.insert(gateways).values({ name: unique('gw'), status }).returning();
  return row.id;
}

/** A survey owned by `userId`; with `sections` > 0 it is ready to run (a play-message script). */
export async function makeSurvey(db: Db, userId: number, sections = 1): Promise<number> {
  const [survey] = await db.insert(surveyTemplates).values({ name: unique('survey'), user_id: userId }).returning();
  for (let i = 0; i < sections; i++) {
    await db.insert(sectionTemplates).values({ survey_id: survey.id, order: i + 1, question: `q${i}`, script: 'Hello' });
  }
  return survey.id;
}

/** A phonebook of `userId` holding `numbers` (active unless listed in `inactive`). */
export async function makePhonebook(db: Db, userId: number, numbers: string[] = [], inactive: string[] = []): Promise<number> {
  const [book] = await db.insert(phonebooks).values({ name: unique('book'), user_id: userId }).returning();
  await addContacts(db, book.id, numbers, inactive);
  return book.id;
}

export async function addContacts(db: Db, phonebookId: number, numbers: string[], inactive: string[] = []): Promise<void> {
  const rows = [
    ...numbers.map((contact) => ({ phonebook_id: phonebookId, contact, full_name: `N ${contact}`, additional_vars: { n: contact } })),
    ...inactive.map((contact) => ({ phonebook_id: phonebookId, contact, status: 0 })),
  ];
  if (rows.length) await db.insert(contacts).values(rows);
}
