import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, eq, sql } from 'drizzle-orm';
import { campaignPhonebooks, campaigns, CampaignStatus, contacts, phonebooks, subscribers } from '../db/schema.ts';
import { queryRows } from '../db/database.ts';
import { addContacts, makeGateway, makePhonebook, makeSurvey, makeUser, unique } from '../../test/factories.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { spoolCampaign, spoolNewContacts, spoolPhonebooks } from './spool.ts';

const database = await testDatabase();
const db = database.db;
const user = await makeUser(db);
const gateway = (await makeGateway(db)).id;
const survey = await makeSurvey(db, user.id);

async function campaignWith(phonebookIds: number[], status: number = CampaignStatus.Start): Promise<number> {
  const [row] = await db
    .insert(campaigns)
    .values({ name: unique('c'), campaign_code: unique('C').toUpperCase().slice(0, 20), user_id: user.id, aleg_gateway_id: gateway, survey_id: survey, status })
    .returning();
  if (phonebookIds.length) await db.insert(campaignPhonebooks).values(phonebookIds.map((phonebook_id) => ({ campaign_id: row.id, phonebook_id })));
  return row.id;
}

const subscribersOf = (id: number) => db.select().from(subscribers).where(eq(subscribers.campaign_id, id)).orderBy(asc(subscribers.duplicate_contact));

describe(`spool (${dbLabel})`, () => {
  test('spools one subscriber per distinct number of active contacts, with name, vars and time zone', async () => {
    const a = await makePhonebook(db, user.id, ['+12035550101', '+33612345678'], ['+12035550199']);
    const b = await makePhonebook(db, user.id, ['+12035550101', '+919812345678']);
    const id = await campaignWith([a, b]);
    assert.equal(await spoolCampaign(db, id), 3);
    const rows = await subscribersOf(id);
    assert.deepEqual(rows.map((r) => r.duplicate_contact), ['+12035550101', '+33612345678', '+919812345678']);
    assert.equal(rows[0].full_name, 'N +12035550101');
    assert.deepEqual(rows[0].additional_vars, { n: '+12035550101' });
    assert.deepEqual(rows.map((r) => r.tz_code), ['America/New_York', 'Europe/Paris', 'Asia/Calcutta']);
    assert.equal(rows[2].gmt_offset, '5.50');
    const [c] = await db.select().from(campaigns).where(eq(campaigns.id, id));
    assert.equal(c.totalcontact, 3);
    assert.equal(await spoolCampaign(db, id), 0, 'spooling again adds nothing');
  });

  test('subscribers are written (and so dialled) in the phonebook\'s order, not the numbers\' order', async () => {
    const book = await makePhonebook(db, user.id, ['+33612345679', '+12035550111', '+33612345679', '+12035550110']);
    const id = await campaignWith([book]);
    assert.equal(await spoolCampaign(db, id), 3);
    const byId = await db.select().from(subscribers).where(eq(subscribers.campaign_id, id)).orderBy(asc(subscribers.id));
    assert.deepEqual(byId.map((r) => r.duplicate_contact), ['+33612345679', '+12035550111', '+12035550110']);
  });

  test('time zones are found for every prefix of the phonebooks, with or without a +', async () => {
    const a = await makePhonebook(db, user.id, ['33612345670', '+12035550120', '+12055550122', '12125550121', '+33612345671']);
    const b = await makePhonebook(db, user.id, ['+4930123450']);
    const id = await campaignWith([a, b]);
    assert.equal(await spoolCampaign(db, id), 6);
    const zones = Object.fromEntries((await subscribersOf(id)).map((r) => [r.duplicate_contact, r.tz_code]));
    assert.deepEqual(zones, {
      '+12035550120': 'America/New_York',
      '+12055550122': 'America/Chicago',
      '+33612345671': 'Europe/Paris',
      '+4930123450': 'Europe/Berlin',
      '12125550121': 'America/New_York',
      '33612345670': 'Europe/Paris',
    });
  });

  test('contacts trickled into the phonebooks of a running campaign join it; not a paused one', async () => {
    const book = await makePhonebook(db, user.id, ['+4930123456']);
    const running = await campaignWith([book]);
    const paused = await campaignWith([book], CampaignStatus.Pause);
    await spoolCampaign(db, running);
    await spoolCampaign(db, paused);
    await addContacts(db, book, ['+4930123457', '+4930123456'], ['+4930123458']);
    assert.ok((await spoolNewContacts(db)) >= 1);
    assert.deepEqual((await subscribersOf(running)).map((r) => r.duplicate_contact), ['+4930123456', '+4930123457']);
    assert.equal((await subscribersOf(running))[1].tz_code, 'Europe/Berlin');
    assert.equal((await subscribersOf(paused)).length, 1);
    assert.equal(await spoolNewContacts(db), 0, 'nothing new: nothing joins');
  });

  test('spools of one campaign running at once write each number once', async () => {
    const book = await makePhonebook(db, user.id, ['+12035550301', '+12035550302']);
    const id = await campaignWith([book]);
    await spoolCampaign(db, id);
    await addContacts(db, book, ['+12035550303', '+12035550304', '+12035550303']);
    let second: Promise<number> | undefined;
    await db.transaction(async (tx) => {
      assert.equal(await spoolNewContacts(tx as never), 2);
      // Another spool of the campaign, on another connection (PostgreSQL), while this one is not
      // yet committed: it waits for the campaign row, then finds the numbers already there.
      second = spoolPhonebooks(db, id, [book]);
      await new Promise((r) => setTimeout(r, 300)); 
    });
    assert.equal(await second, 0);
    assert.deepEqual(
      (await subscribersOf(id)).map((r) => r.duplicate_contact),
      ['+12035550301', '+12035550302', '+12035550303', '+12035550304'],
    );
    const [c] = await db.select().from(campaigns).where(eq(campaigns.id, id));
    assert.equal(c.totalcontact, 4);
  });

  test('linking a phonebook to a running campaign leaves the contacts just added to its other phonebooks to the trickle', async () => {
    const first = await makePhonebook(db, user.id, ['+12035550601']);
    const id = await campaignWith([first]);
    await spoolCampaign(db, id);
    await addContacts(db, first, ['+12035550602']); // not yet trickled in
    const second = await makePhonebook(db, user.id, ['+12035550603']);
    await db.insert(campaignPhonebooks).values({ campaign_id: id, phonebook_id: second });
    assert.equal(await spoolPhonebooks(db, id, [second]), 1);
    assert.equal(await spoolNewContacts(db), 1, 'the contact added to the first phonebook still joins');
    assert.deepEqual(
      (await subscribersOf(id)).map((r) => r.duplicate_contact),
      ['+12035550601', '+12035550602', '+12035550603'],
    );
  });

  test('deleting a campaign deletes its subscribers; deleting contacts keeps subscribers without their contact', async () => {
    const book = await makePhonebook(db, user.id, ['+12035550401', '+12035550402']);
    const kept = await campaignWith([book]);
    const gone = await campaignWith([book]);
    await spoolCampaign(db, kept);
    await spoolCampaign(db, gone);
    await db.delete(campaigns).where(eq(campaigns.id, gone));
    assert.equal((await subscribersOf(gone)).length, 0);
    assert.ok((await subscribersOf(kept)).every((r) => r.contact_id !== null));

    const [first] = await db.select().from(contacts).where(eq(contacts.phonebook_id, book)).orderBy(asc(contacts.id)).limit(1);
    await db.delete(contacts).where(eq(contacts.id, first.id));
    assert.deepEqual(
      (await subscribersOf(kept)).map((r) => [r.duplicate_contact, r.contact_id === null]),
      [['+12035550401', true], ['+12035550402', false]],
    );
    await db.delete(campaignPhonebooks).where(eq(campaignPhonebooks.phonebook_id, book));
    await db.delete(phonebooks).where(eq(phonebooks.id, book));
    const rows = await subscribersOf(kept);
    assert.equal(rows.length, 2, 'the subscribers stay with the campaign');
    assert.ok(rows.every((r) => r.contact_id === null));
  });

  test('deleting an SMS campaign deletes its SMS subscribers', async () => {
    const [sms] = await queryRows<{ id: number }>(
      db,
      sql`insert into sms_campaigns (sms_campaign_code, name, user_id) values (${unique('S').toUpperCase().slice(0, 20)}, ${unique('s')}, ${user.id}) returning id`,
    );
    await db.execute(sql`insert into sms_subscribers (sms_campaign_id, duplicate_contact, phone_key) values (${sms.id}, '+12035550501', '12035550501')`);
    await db.execute(sql`delete from sms_campaigns where id = ${sms.id}`);
    const left = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from sms_subscribers where sms_campaign_id = ${sms.id}`);
    assert.equal(left[0].n, 0);
  });
});
