import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeDncList, makeUser } from '../../test/factories.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { sql } from 'drizzle-orm';
import { queryRows } from '../db/database.ts';
import { doNotCallSql, isDoNotCall } from './dnc.ts';

const database = await testDatabase();
const { db } = database;

const makeList = (userId: number, numbers: string[], isGlobal = false) => makeDncList(db, userId, numbers, isGlobal);

describe(`isDoNotCall (${dbLabel})`, () => {
  test("a number on the campaign's own list is do-not-call, matched by digits only", async () => {
    const owner = await makeUser(db);
    const list = await makeList(owner.id, ['+12035550101']);
    assert.equal(await isDoNotCall(db, owner.id, list, '12035550101'), true);
    assert.equal(await isDoNotCall(db, owner.id, list, '+1 (203) 555-0101'), true);
    assert.equal(await isDoNotCall(db, owner.id, list, '12035550102'), false);
  });

  test("a list that is neither the campaign's nor global does not apply", async () => {
    const owner = await makeUser(db);
    await makeList(owner.id, ['12035550111']);
    const own = await makeList(owner.id, []);
    assert.equal(await isDoNotCall(db, owner.id, own, '12035550111'), false);
    assert.equal(await isDoNotCall(db, owner.id, null, '12035550111'), false);
  });

  test("the owner's global lists apply to every campaign of the owner, not to other users'", async () => {
    const owner = await makeUser(db);
    const other = await makeUser(db);
    await makeList(owner.id, ['12035550122'], true);
    assert.equal(await isDoNotCall(db, owner.id, null, '+12035550122'), true);
    assert.equal(await isDoNotCall(db, other.id, null, '+12035550122'), false);
  });

  test("an admin's global lists apply to everyone's campaigns; an admin's other lists do not", async () => {
    const admin = await makeUser(db, { admin: true });
    const owner = await makeUser(db);
    await makeList(admin.id, ['12035550133'], true);
    await makeList(admin.id, ['12035550144'], false);
    assert.equal(await isDoNotCall(db, owner.id, null, '12035550133'), true);
    assert.equal(await isDoNotCall(db, owner.id, null, '12035550144'), false);
  });

  test("subscribers' numbers (collation C) are looked up through the key index, not by reading the lists", async () => {
    const owner = await makeUser(db);
    await makeList(owner.id, ['12035550133'], true);
    const plan = await db.transaction(async (tx) => {
      await tx.execute(sql`set local enable_seqscan = off`);
      await tx.execute(sql`set local enable_hashjoin = off`);
      await tx.execute(sql`set local enable_mergejoin = off`);
      const rows = await queryRows<Record<string, string>>(
        tx,
        sql`explain select s.id from subscribers s where s.campaign_id = 0 and ${doNotCallSql(sql`s.phone_key`, owner.id, null)}`,
      );
      return rows.map((r) => Object.values(r)[0]).join('\n');
    });
    assert.match(plan, /dnc_contacts_phone_key_dnc_idx/, plan);
  });
});
