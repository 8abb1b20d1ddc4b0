/** /rest-api/sms-template/ and /rest-api/mail-template/ (issue 17, item 7). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp } from '../../../test/helpers.ts';
import { mailTemplates, smsTemplates } from '../../db/schema.ts';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

const smsBody = () => ({ label: 'Reminder', template_key: unique('k'), sender_phonenumber: '9427164510', sms_text: 'Hi {full_name}, see you at {time}' });
const mailBody = () => ({
  label: 'Reminder mail',
  template_key: unique('k'),
  from_email: 'clinic@example.com',
  from_name: 'Clinic',
  subject: 'Your visit, {full_name}',
  message_plaintext: 'See you at {time}',
  message_html: '<h1>See you at {time}</h1>',
});

describe(`sms-template and mail-template (${dbLabel})`, () => {
  test('POST sms-template answers 201 with the record as Newfies lists it, and Location', async () => {
    const body = smsBody();
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', body);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, `http://localhost:80/rest-api/sms-template/${res.data.id}/`);
    assert.equal(res.data.url, res.headers.location);
    for (const k of ['label', 'template_key', 'sender_phonenumber', 'sms_text'] as const) assert.equal(res.data[k], body[k]);
    assert.equal(res.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.match(res.data.created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/sms-template/?page_size=1000');
    assert.deepEqual(Object.keys(list.data), ['count', 'next', 'previous', 'results']);
    assert.deepEqual(list.data.results.find((r: { id: number }) => r.id === res.data.id), res.data);
  });

  test('POST mail-template answers 201 with the record as Newfies lists it', async () => {
    const body = mailBody();
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/mail-template/', body);
    assert.equal(res.statusCode, 201, res.body);
    for (const [k, v] of Object.entries(body)) assert.equal(res.data[k], v, k);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/mail-template/${res.data.id}`);
    assert.deepEqual(read.data, res.data);
  });

  test('the API root lists both resources', async () => {
    const root = await call(t.app, alice.auth, 'GET', '/rest-api/');
    assert.equal(root.data['sms-template'], 'http://localhost:80/rest-api/sms-template/');
    assert.equal(root.data['mail-template'], 'http://localhost:80/rest-api/mail-template/');
  });

  test('missing fields, a bad e-mail and a key the owner already uses answer 400 and store nothing', async () => {
    const before = [await db.$count(smsTemplates), await db.$count(mailTemplates)];
    const missing = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', {});
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, {
      label: ['This field is required.'],
      template_key: ['This field is required.'],
      sms_text: ['This field is required.'],
    });
    const badMail = await call(t.app, alice.auth, 'POST', '/rest-api/mail-template/', { ...mailBody(), from_email: 'not-an-address' });
    assert.deepEqual(badMail.data, { from_email: ['Enter a valid email address.'] });
    const long = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', { ...smsBody(), label: 'l'.repeat(76) });
    assert.deepEqual(long.data, { label: ['Ensure this field has no more than 75 characters.'] });
    const first = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', smsBody());
    const again = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', { ...smsBody(), template_key: first.data.template_key });
    assert.equal(again.statusCode, 400, again.body);
    assert.deepEqual(again.data, { template_key: ['sms template with this template key already exists.'] });
    // Another owner may use the same key.
    const bobs = await call(t.app, bob.auth, 'POST', '/rest-api/sms-template/', { ...smsBody(), template_key: first.data.template_key });
    assert.equal(bobs.statusCode, 201, bobs.body);
    assert.deepEqual([await db.$count(smsTemplates), await db.$count(mailTemplates)], [before[0] + 2, before[1]]);
  });

  test('PATCH and PUT answer 202 with an empty body; a rejected one changes nothing', async () => {
    const made = await call(t.app, alice.auth, 'POST', '/rest-api/mail-template/', mailBody());
    const other = await call(t.app, alice.auth, 'POST', '/rest-api/mail-template/', mailBody());
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/mail-template/${made.data.id}/`, { subject: 'New subject' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/mail-template/${made.data.id}/`, { from_name: 'Desk' });
    assert.equal(put.statusCode, 202, put.body);
    const clash = await call(t.app, alice.auth, 'PATCH', `/rest-api/mail-template/${made.data.id}/`, { template_key: other.data.template_key, subject: 'x' });
    assert.deepEqual(clash.data, { template_key: ['mail template with this template key already exists.'] });
    const after = await call(t.app, alice.auth, 'GET', `/rest-api/mail-template/${made.data.id}/`);
    assert.equal(after.data.subject, 'New subject');
    assert.equal(after.data.from_name, 'Desk');
    assert.equal(after.data.template_key, made.data.template_key);
  });

  test("another user's template is absent from the list and answers 404 to GET, PATCH, PUT and DELETE; an admin sees it", async () => {
    for (const name of ['sms-template', 'mail-template']) {
      const theirs = await call(t.app, bob.auth, 'POST', `/rest-api/${name}/`, name === 'sms-template' ? smsBody() : mailBody());
      assert.equal(theirs.statusCode, 201, theirs.body);
      const list = await call(t.app, alice.auth, 'GET', `/rest-api/${name}/?page_size=1000`);
      assert.ok(!list.data.results.some((r: { id: number }) => r.id === theirs.data.id));
      for (const method of ['GET', 'PATCH', 'PUT', 'DELETE'] as const) {
        const body = method === 'PATCH' || method === 'PUT' ? { label: 'x' } : undefined;
        const res = await call(t.app, alice.auth, method, `/rest-api/${name}/${theirs.data.id}/`, body);
        assert.equal(res.statusCode, 404, `${name} ${method}: ${res.body}`);
      }
      const byAdmin = await call(t.app, admin.auth, 'GET', `/rest-api/${name}/${theirs.data.id}/`);
      assert.equal(byAdmin.data.label, theirs.data.label);
      const noUser = await call(t.app, alice.auth, 'POST', `/rest-api/${name}/`, { ...(name === 'sms-template' ? smsBody() : mailBody()), user: bob.id });
      assert.deepEqual(noUser.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    }
  });

  test('DELETE answers 204 and the template is gone', async () => {
    const made = await call(t.app, alice.auth, 'POST', '/rest-api/sms-template/', smsBody());
    const del = await call(t.app, alice.auth, 'DELETE', `/rest-api/sms-template/${made.data.id}/`);
    assert.equal(del.statusCode, 204, del.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/sms-template/${made.data.id}/`)).statusCode, 404);
  });

  test('every route answers 401 without credentials', async () => {
    for (const url of ['/rest-api/sms-template/', '/rest-api/mail-template/']) {
      assert.equal((await call(t.app, undefined, 'GET', url)).statusCode, 401);
      assert.equal((await call(t.app, undefined, 'POST', url, {})).statusCode, 401);
    }
  });
});
