import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, eq } from 'drizzle-orm';
import { campaignPhonebooks, campaigns, CampaignStatus, subscribers } from '../db/schema.ts';
import { addContacts, makeGateway, makePhonebook, makeSurvey } from '../resources/campaigns/campaign.fixtures.ts';
import { makeUser, unique } from '../../test/factories.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { spoolCampaign, spoolNewContacts } from './spool.ts';

const database = await testDatabase();
const db = database.db;
const user = await makeUser(db);
const gateway = await makeGateway(db);
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
});
