/**
 * An SMS campaign that sends an SMS template (issue 17, item 7): `sms_template` on
 * /rest-api/sms-campaigns/, text_message then optional; the engine sends the template's text,
 * with the same placeholders, when the campaign's own text is empty.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { asc, eq } from 'drizzle-orm';
import { smsCampaigns, smsMessages } from '../../db/schema.ts';
import { smsPass, smsScenario } from '../../engine/sms/sms.fixtures.ts';
import { makePhonebook, makeSmsGateway, makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';

const t = await testApp();
const { db } = t.database;
const alice = await makeUser(db);
const bob = await makeUser(db);
const gateway = (await makeSmsGateway(db)).id;

async function template(owner: { auth: string }, sms_text = 'Hi {full_name}, you owe {debt}') {
  const res = await call(t.app, owner.auth, 'POST', '/rest-api/sms-template/', { label: 'Debt', template_key: unique('k'), sms_text });
  assert.equal(res.statusCode, 201, res.body);
  return res.data as { id: number; url: string };
}

const createCampaign = (body: Record<string, unknown>, auth = alice.auth) =>
  call(t.app, auth, 'POST', '/rest-api/sms-campaigns/', { name: unique('sms'), sms_gateway: gateway, ...body });

describe(`SMS campaigns with an SMS template (${dbLabel})`, () => {
  test('POST with sms_template and no text_message answers 201 and shows the link; with neither, text_message is required', async () => {
    const tpl = await template(alice);
    const res = await createCampaign({ sms_template: tpl.url });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.sms_template, `http://localhost:80/rest-api/sms-template/${tpl.id}/`);
    assert.equal(res.data.text_message, '');
    const without = await call(t.app, alice.auth, 'POST', '/rest-api/sms-campaigns/', {});
    assert.deepEqual(Object.keys(without.data).sort(), ['name', 'sms_gateway', 'text_message']);
    const blank = await createCampaign({ sms_template: '' });
    assert.deepEqual(blank.data, { text_message: ['This field is required.'] });
    const plain = await createCampaign({ text_message: 'Hello' });
    assert.equal(plain.data.sms_template, null);
  });

  test("another user's template is refused as a link that does not exist; PATCH may set and clear the template", async () => {
    const theirs = await template(bob);
    const res = await createCampaign({ sms_template: theirs.id });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { sms_template: ['Invalid hyperlink - Object does not exist.'] });
    const campaign = await createCampaign({ text_message: 'Hello' });
    const mine = await template(alice);
    assert.equal((await call(t.app, alice.auth, 'PATCH', `/rest-api/sms-campaigns/${campaign.data.id}/`, { sms_template: mine.id })).statusCode, 202);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${campaign.data.id}/`);
    assert.equal(read.data.sms_template, mine.url);
    assert.equal((await call(t.app, alice.auth, 'PATCH', `/rest-api/sms-campaigns/${campaign.data.id}/`, { sms_template: null })).statusCode, 202);
    const [row] = await db.select().from(smsCampaigns).where(eq(smsCampaigns.id, campaign.data.id));
    assert.equal(row.sms_template_id, null);
  });

  test('a campaign whose template was deleted and that has no text cannot start', async () => {
    const tpl = await template(alice);
    const campaign = await createCampaign({ sms_template: tpl.id, phonebook: [await makePhonebook(db, alice.id, ['+12035550101'])] });
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/sms-template/${tpl.id}/`)).statusCode, 204);
    const start = await call(t.app, alice.auth, 'PATCH', `/rest-api/sms-campaigns/${campaign.data.id}/`, { status: 1 });
    assert.equal(start.statusCode, 400, start.body);
    assert.match(start.data.status[0], /no text_message and no SMS template/);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/sms-campaigns/${campaign.data.id}/`);
    assert.equal(read.data.sms_template, null);
    assert.equal(read.data.status, 2);
  });

  test("the engine sends the template's text, its placeholders filled, when text_message is empty", async () => {
    const tpl = await template(alice, 'Hi {full_name}, you owe {debt}');
    const s = await smsScenario(db, {
      campaign: { text_message: '', sms_template_id: tpl.id },
      subscriber: { full_name: 'Ada Lovelace', additional_vars: { debt: '12.50' } },
    });
    await smsPass(s);
    const messages = await db.select().from(smsMessages).where(eq(smsMessages.sms_campaign_id, s.campaignId)).orderBy(asc(smsMessages.id));
    assert.deepEqual(messages.map((m) => m.content), ['Hi Ada Lovelace, you owe 12.50']);
    const own = await smsScenario(db, { campaign: { text_message: 'Own text', sms_template_id: tpl.id } });
    await smsPass(own);
    const [m] = await db.select().from(smsMessages).where(eq(smsMessages.sms_campaign_id, own.campaignId));
    assert.equal(m.content, 'Own text', "the campaign's own text wins");
  });
});
