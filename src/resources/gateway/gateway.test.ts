import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { CampaignStatus, gateways } from '../../db/schema.ts';
import { makeCampaign, unique } from '../../../test/factories.ts';
import { call, dbLabel } from '../../../test/helpers.ts';
import { gatewayTestApp } from '../gateways/gateways.fixtures.ts';
import { findGateway } from './gateway.kind.ts';
import { maskSecrets, restoreSecrets } from '../gateways/gateways.secrets.ts';

const { t, db, admin, alice, postGateway } = await gatewayTestApp('gateway', 'gw');

/** A campaign of alice's in `status` dialing through `gatewayId` (written directly). */
async function makeAliceCampaign(gatewayId: number, status: number) {
  await makeCampaign(db, { user_id: alice.id, status, aleg_gateway_id: gatewayId });
}

const freeswitch = { driver: 'freeswitch', settings: { host: '10.0.0.5', port: 8021, password: 'ClueCon' } };

describe(`gateway (${dbLabel})`, () => {
  test('an admin creates a gateway: 201, the whole record with defaults, and its Location', async () => {
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { name: 'Carrier A', gateways: 'sofia/gateway/a/', maximum_call: '20' });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/gateway/${res.data.id}/`);
    const { created_date, updated_date, ...rest } = res.data;
    assert.match(created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(updated_date);
    assert.deepEqual(rest, {
      id: res.data.id, url: res.data.url, name: 'Carrier A', status: 1, description: '', driver: 'simulator',
      gateways: 'sofia/gateway/a/', addprefix: '', removeprefix: '', originate_dial_string: '', maximum_call: 20, settings: {},
    });
  });

  test('POST without a name, with a duplicate name or with maximum_call 0 answers 400 listing every problem', async () => {
    const missing = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { maximum_call: 0 });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { name: ['This field is required.'], maximum_call: ['Ensure this value is greater than or equal to 1.'] });
    const gw = await postGateway();
    const duplicate = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { name: gw.data.name });
    assert.equal(duplicate.statusCode, 400, duplicate.body);
    assert.deepEqual(duplicate.data, { name: ['gateway with this name already exists.'] });
  });

  test('settings that do not suit the driver, or an unknown driver, answer 400 and create nothing', async () => {
    const before = await db.$count(gateways);
    const bad = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { name: unique('gw'), settings: { answer_rate: 3, colour: 'red' } });
    assert.equal(bad.statusCode, 400, bad.body);
    assert.deepEqual(Object.keys(bad.data), ['settings']);
    assert.equal(bad.data.settings.length, 2, bad.body);
    const notObject = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { name: unique('gw'), settings: '[1]' });
    assert.deepEqual(notObject.data, { settings: ['Value must be a JSON object.'] });
    const driver = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', { name: unique('gw'), driver: 'pigeon' });
    assert.equal(driver.statusCode, 400, driver.body);
    assert.match(driver.data.driver[0], /"pigeon" is not a valid choice/);
    assert.equal(await db.$count(gateways), before);
  });

  test('secrets in settings are stored but never returned, at any depth', async () => {
    const gw = await postGateway(freeswitch);
    assert.deepEqual(gw.data.settings, { host: '10.0.0.5', port: 8021, password: '********' });
    const read = await call(t.app, admin.auth, 'GET', `/rest-api/gateway/${gw.id}/`);
    assert.ok(!read.body.includes('ClueCon'), read.body);
    assert.equal(((await findGateway(db, gw.id))?.settings as { password?: string }).password, 'ClueCon');
    assert.deepEqual(maskSecrets({ a: { API_Token: 'x', list: [{ client_secret: 'y' }] }, n: 1 }), {
      a: { API_Token: '********', list: [{ client_secret: '********' }] }, n: 1,
    });
  });

  test('sending a masked secret back keeps the stored one; a new value replaces it', async () => {
    const gw = await postGateway(freeswitch);
    const same = await call(t.app, admin.auth, 'PUT', `/rest-api/gateway/${gw.id}/`, { settings: gw.data.settings });
    assert.equal(same.statusCode, 202, same.body);
    assert.equal(((await findGateway(db, gw.id))?.settings as { password?: string }).password, 'ClueCon');
    await call(t.app, admin.auth, 'PATCH', `/rest-api/gateway/${gw.id}/`, { settings: { ...gw.data.settings, password: 'new' } });
    assert.equal(((await findGateway(db, gw.id))?.settings as { password?: string }).password, 'new');
    assert.deepEqual(restoreSecrets({ db: { token: '********' } }, { db: { token: 't' } }), { db: { token: 't' } });
  });

  test('PATCH and PUT answer 202 with an empty body and change only the fields given', async () => {
    const gw = await postGateway({ settings: { answer_rate: 0.5 } });
    const patch = await call(t.app, admin.auth, 'PATCH', `/rest-api/gateway/${gw.id}/`, { status: 0, maximum_call: null });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, admin.auth, 'PUT', `/rest-api/gateway/${gw.id}/`, { description: 'spare' });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, admin.auth, 'GET', `/rest-api/gateway/${gw.id}/`);
    assert.deepEqual([read.data.status, read.data.maximum_call, read.data.description], [0, null, 'spare']);
    assert.deepEqual(read.data.settings, { answer_rate: 0.5 });
  });

  test('changing the driver checks the settings it will run with', async () => {
    const gw = await postGateway({ settings: { answer_rate: 0.5 } });
    const res = await call(t.app, admin.auth, 'PATCH', `/rest-api/gateway/${gw.id}/`, { driver: 'freeswitch' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { settings: ['answer_rate: is not a setting of the freeswitch driver.'] });
    assert.equal((await findGateway(db, gw.id))?.driver, 'simulator');
  });

  test('a non-admin gets 403 on every write and changes nothing', async () => {
    const gw = await postGateway();
    for (const [method, url] of [
      ['POST', '/rest-api/gateway/'],
      ['PATCH', `/rest-api/gateway/${gw.id}/`],
      ['PUT', `/rest-api/gateway/${gw.id}/`],
      ['DELETE', `/rest-api/gateway/${gw.id}/`],
    ] as const) {
      const res = await call(t.app, alice.auth, method, url, method === 'DELETE' ? undefined : { name: unique('gw') });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'You do not have permission to perform this action.' });
    }
    assert.equal((await findGateway(db, gw.id))?.name, gw.data.name);
  });

  test('a non-admin reads only the id, url and name of every gateway', async () => {
    const gw = await postGateway({ ...freeswitch, status: 0 });
    const detail = await call(t.app, alice.auth, 'GET', `/rest-api/gateway/${gw.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.deepEqual(detail.data, { id: gw.id, url: gw.url, name: gw.data.name });
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/gateway/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    const mine = list.data.results.find((r: { id: number }) => r.id === gw.id);
    assert.deepEqual(mine, { id: gw.id, url: gw.url, name: gw.data.name });
    assert.equal((await call(t.app, alice.auth, 'GET', '/rest-api/gateway/999999/')).statusCode, 404);
  });

  test('DELETE answers 204; 409 while a running campaign uses the gateway, or any campaign names it', async () => {
    const free = await postGateway();
    const res = await call(t.app, admin.auth, 'DELETE', `/rest-api/gateway/${free.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await findGateway(db, free.id), undefined);
    const busy = await postGateway();
    await makeAliceCampaign(busy.id, CampaignStatus.Start);
    const running = await call(t.app, admin.auth, 'DELETE', `/rest-api/gateway/${busy.id}/`);
    assert.equal(running.statusCode, 409, running.body);
    assert.match(running.data.detail, /running campaign/);
    const named = await postGateway();
    await makeAliceCampaign(named.id, CampaignStatus.End);
    const ended = await call(t.app, admin.auth, 'DELETE', `/rest-api/gateway/${named.id}/`);
    assert.equal(ended.statusCode, 409, ended.body);
    assert.equal(await db.$count(gateways, eq(gateways.id, named.id)), 1);
  });

  test('every route answers 401 without credentials', async () => {
    const gw = await postGateway();
    for (const [method, url] of [
      ['GET', '/rest-api/gateway/'],
      ['POST', '/rest-api/gateway/'],
      ['GET', `/rest-api/gateway/${gw.id}/`],
      ['PATCH', `/rest-api/gateway/${gw.id}/`],
      ['DELETE', `/rest-api/gateway/${gw.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
  });
});
