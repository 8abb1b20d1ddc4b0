/**
 * Migration 0023 on a database that already holds numbers: every contact, DNC number and voice
 * and SMS subscriber gets its digits as its key (the key of a '+' number, and of any number
 * when no country applies), set-based; then `phone rekey` makes national numbers E.164 once a
 * country applies, and the engine's DNC rule matches across forms.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { isDoNotCall } from '../src/campaign/dnc.ts';
import { rekeyNumbers } from '../src/campaign/phone-rekey.ts';
import { type Database, openDatabase, queryRows } from '../src/db/database.ts';
import { applyMigrations, createSchemaMigrations, migrationFiles } from '../src/db/migrate.ts';
import { dbLabel, freshPostgresDatabase, onPostgres } from './helpers.ts';

async function emptyDatabase(): Promise<Database> {
  if (!onPostgres) {
    const database = await openDatabase({ dataDir: 'memory' });
    after(() => database.close());
    return database;
  }
  const { url, drop } = await freshPostgresDatabase();
  const database = await openDatabase({ url, poolSize: 2 });
  after(async () => {
    await database.close();
    await drop();
  });
  return database;
}

const database = await emptyDatabase();
const { db } = database;
const files = migrationFiles();
const at = files.findIndex((name) => name.startsWith('0023_'));

describe(`migration 0023, phone keys (${dbLabel})`, () => {
  test('existing numbers get their digits as key; rekey reads national ones in the country; DNC then matches across forms', async () => {
    await database.exec(createSchemaMigrations);
    await applyMigrations(files.slice(0, at), (text) => database.exec(text));
    await database.exec(`
      insert into users (username, password_hash) values ('us-owner', 'h');
      insert into phonebooks (name, user_id) values ('book', 1);
      insert into contacts (phonebook_id, contact) values (1, '+12035550101'), (1, '2035550102'), (1, '999123');
      insert into dnc_lists (name, user_id, is_global) values ('dnc', 1, true);
      insert into dnc_contacts (dnc_id, phone_number) values (1, '+12035550102'), (1, '2035550101');
      insert into campaigns (campaign_code, name, user_id) values ('C1', 'c', 1);
      insert into subscribers (campaign_id, duplicate_contact) values (1, '2035550102');
      insert into sms_campaigns (sms_campaign_code, name, user_id) values ('S1', 's', 1);
      insert into sms_subscribers (sms_campaign_id, duplicate_contact) values (1, '+12035550101');
    `);
    await applyMigrations(files.slice(at), (text) => database.exec(text));

    const keys = async (table: string, column: string) =>
      (await queryRows<{ n: string; k: string }>(db, sql`select ${sql.identifier(column)} as n, phone_key as k from ${sql.identifier(table)} order by id`)).map((r) => [r.n, r.k]);
    assert.deepEqual(await keys('contacts', 'contact'), [['+12035550101', '12035550101'], ['2035550102', '2035550102'], ['999123', '999123']]);
    assert.deepEqual(await keys('dnc_contacts', 'phone_number'), [['+12035550102', '12035550102'], ['2035550101', '2035550101']]);
    assert.deepEqual(await keys('subscribers', 'duplicate_contact'), [['2035550102', '2035550102']]);
    assert.deepEqual(await keys('sms_subscribers', 'duplicate_contact'), [['+12035550101', '12035550101']]);
    // The indexes keys are compared through.
    const indexes = (await queryRows<{ i: string }>(db, sql`select indexname as i from pg_indexes where indexname like '%key%' order by 1`)).map((r) => r.i);
    for (const name of ['contacts_phonebook_key_idx', 'dnc_contacts_phone_key_dnc_idx', 'sms_subscribers_campaign_key_idx', 'subscribers_campaign_key_idx']) {
      assert.ok(indexes.includes(name), `${name} in ${indexes.join(', ')}`);
    }

    // Before the rekey, as before keys: national numbers match only their own digits.
    assert.equal(await isDoNotCall(db, 1, null, '+12035550101'), false);
    await rekeyNumbers(db, 'US');
    assert.deepEqual(await keys('contacts', 'contact'), [['+12035550101', '12035550101'], ['2035550102', '12035550102'], ['999123', '999123']]);
    assert.deepEqual(await keys('dnc_contacts', 'phone_number'), [['+12035550102', '12035550102'], ['2035550101', '12035550101']]);
    assert.deepEqual(await keys('subscribers', 'duplicate_contact'), [['2035550102', '12035550102']]);
    assert.equal(await isDoNotCall(db, 1, null, '+12035550101'), true);
    assert.equal(await isDoNotCall(db, 1, null, '(203) 555-0102', 'US'), true);
  });
});
