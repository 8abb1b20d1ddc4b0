import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { CampaignStatus, smsGateways, smsInbound, smsMessages } from '../../db/schema.ts';
import { makeSmsCampaign, unique } from '../../../test/factories.ts';
import { call, dbLabel } from '../../../test/helpers.ts';
import { gatewayTestApp } from '../gateways/gateways.fixtures.ts';
import { findSmsGateway } from './sms-gateway.kind.ts';

const { t, db, admin, alice, postGateway } = await gatewayTestApp('sms-gateway', 'sgw');

/** An SMS campaign of alice's in `status` sending through `gatewayId` (written directly). */
async function makeAliceSmsCampaign(gatewayId: number, status: number) {
  return makeSmsCampaign(db, { user_id: alice.id, status, sms_gateway_id: gatewayId, text_message: 'hi' });
}

const kannel = {
  driver: 'kannel',
  settings: {
    sendsms_url: 'http://127.0.0.1:13013/cgi-bin/sendsms',
    username: 'dialer',
    password: 'Kannel-Pass-1',
    callback_base_url: 'http://10.1.2.3:8000',
  },
};

describe(`sms-gateway (${dbLabel})`, () => {
  test('an admin creates an SMS gateway: 201, the whole record with defaults, its Location and callback URLs', async () => {
    const res = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', { name: 'SMS A', settings: { delivery_rate: 0.9, failure_rate: 0.1, seed: 3 } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.headers.location, res.data.url);
    assert.equal(res.data.url, `http://localhost:80/rest-api/sms-gateway/${res.data.id}/`);
    const secret = (await findSmsGateway(db, res.data.id))?.callback_secret as string;
    assert.match(secret, /^[A-Za-z0-9_-]{40,}$/);
    const { created_date, updated_date, ...rest } = res.data;
    assert.match(created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.ok(updated_date);
    assert.deepEqual(rest, {
      id: res.data.id, url: res.data.url, name: 'SMS A', status: 1, description: '', driver: 'simulator',
      settings: { delivery_rate: 0.9, failure_rate: 0.1, seed: 3 },
      report_url: `http://localhost:80/rest-api/sms-gateway/${res.data.id}/report/${secret}/`,
      inbound_url: `http://localhost:80/rest-api/sms-gateway/${res.data.id}/inbound/${secret}/`,
    });
    const other = await postGateway();
    assert.notEqual((await findSmsGateway(db, other.id))?.callback_secret, secret);
  });

  test("a kannel gateway's callback URLs are under its callback_base_url", async () => {
    const gw = await postGateway(kannel);
    const secret = (await findSmsGateway(db, gw.id))?.callback_secret;
    assert.equal(gw.data.report_url, `http://10.1.2.3:8000/rest-api/sms-gateway/${gw.id}/report/${secret}/`);
    assert.equal(gw.data.inbound_url, `http://10.1.2.3:8000/rest-api/sms-gateway/${gw.id}/inbound/${secret}/`);
    assert.deepEqual(gw.data.settings, { ...kannel.settings, password: '********' });
  });

  test('POST without a name, with a duplicate name or an unknown driver answers 400 and creates nothing', async () => {
    const before = await db.$count(smsGateways);
    const missing = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', { status: 5 });
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(Object.keys(missing.data).sort(), ['name', 'status']);
    const gw = await postGateway();
    const duplicate = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', { name: gw.data.name });
    assert.deepEqual(duplicate.data, { name: ['sms gateway with this name already exists.'] });
    const driver = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', { name: unique('sgw'), driver: 'pigeon' });
    assert.equal(driver.statusCode, 400, driver.body);
    assert.match(driver.data.driver[0], /"pigeon" is not a valid choice. Known drivers: simulator, kannel, smpp, http\./);
    assert.equal(await db.$count(smsGateways), before + 1);
  });

  test("settings are checked against the driver, one clear message per setting", async () => {
    const cases: [Record<string, unknown>, string[]][] = [
      [{ driver: 'simulator', settings: { delivery_rate: 2, seed: 'x', colour: 'red' } }, [
        'delivery_rate: must be a number between 0 and 1.', 'seed: must be an integer.', 'colour: is not a setting of the simulator driver.',
      ]],
      [{ driver: 'simulator', settings: { delivery_rate: 0.8, failure_rate: 0.5 } }, ['delivery_rate + failure_rate must not exceed 1.']],
      [{ driver: 'kannel', settings: { sendsms_url: 'ftp://x', dlr_mask: 99 } }, [
        'sendsms_url: must be an http:// or https:// URL.', 'dlr_mask: must be an integer from 0 to 31.',
        'username: this setting is required by the kannel driver.', 'password: this setting is required by the kannel driver.',
        'callback_base_url: this setting is required by the kannel driver.',
      ]],
      [{ driver: 'smpp', settings: { host: 'smsc', port: 70000, system_id: 'me', password: 'p', source_addr_ton: 9 } }, [
        'port: must be an integer from 1 to 65535.', 'source_addr_ton: must be an integer from 0 to 6.',
      ]],
      [{ driver: 'http', settings: { url_template: 'https://api.example/send?to={to}&text={text}', method: 'PUT', success_regex: '(' } }, [
        'method: must be one of GET, POST.', 'success_regex: is not a valid regular expression: Invalid regular expression: /(/: Unterminated group.',
      ]],
    ];
    for (const [body, messages] of cases) {
      const res = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', { name: unique('sgw'), ...body });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.data, { settings: messages });
    }
    const smpp = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', {
      name: unique('sgw'), driver: 'smpp',
      settings: { host: 'smsc.example', port: 2775, system_id: 'me', password: 'pw', system_type: '', source_addr_ton: 5, source_addr_npi: 0, dest_addr_ton: 1, dest_addr_npi: 1, throughput: 50 },
    });
    assert.equal(smpp.statusCode, 201, smpp.body);
    const http = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', {
      name: unique('sgw'), driver: 'http',
      settings: { url_template: 'https://api.example/send', method: 'POST', body_template: '{"to":"{to}","text":"{text}"}', success_regex: '"accepted":true', message_id_regex: '"id":"(\\w+)"', token: 'T0k' },
    });
    assert.equal(http.statusCode, 201, http.body);
    assert.equal(http.data.settings.token, '********');
  });

  test('secrets are stored but never returned; sending a masked one back keeps it, a new value replaces it', async () => {
    const gw = await postGateway(kannel);
    const read = await call(t.app, admin.auth, 'GET', `/rest-api/sms-gateway/${gw.id}/`);
    assert.ok(!read.body.includes('Kannel-Pass-1'), read.body);
    const list = await call(t.app, admin.auth, 'GET', '/rest-api/sms-gateway/?page_size=1000');
    assert.ok(!list.body.includes('Kannel-Pass-1'));
    const same = await call(t.app, admin.auth, 'PUT', `/rest-api/sms-gateway/${gw.id}/`, { settings: read.data.settings });
    assert.equal(same.statusCode, 202, same.body);
    assert.equal(((await findSmsGateway(db, gw.id))?.settings as { password: string }).password, 'Kannel-Pass-1');
    await call(t.app, admin.auth, 'PATCH', `/rest-api/sms-gateway/${gw.id}/`, { settings: { ...read.data.settings, password: 'new-pass' } });
    assert.equal(((await findSmsGateway(db, gw.id))?.settings as { password: string }).password, 'new-pass');
  });

  test('PATCH and PUT answer 202 with an empty body, change only the fields given, and check a new driver', async () => {
    const gw = await postGateway({ settings: { seed: 4 } });
    const patch = await call(t.app, admin.auth, 'PATCH', `/rest-api/sms-gateway/${gw.id}/`, { status: 0 });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, admin.auth, 'PUT', `/rest-api/sms-gateway/${gw.id}/`, { description: 'spare' });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, admin.auth, 'GET', `/rest-api/sms-gateway/${gw.id}/`);
    assert.deepEqual([read.data.status, read.data.description, read.data.settings], [0, 'spare', { seed: 4 }]);
    const driver = await call(t.app, admin.auth, 'PATCH', `/rest-api/sms-gateway/${gw.id}/`, { driver: 'smpp' });
    assert.equal(driver.statusCode, 400, driver.body);
    assert.ok(driver.data.settings.includes('seed: is not a setting of the smpp driver.'), driver.body);
    assert.equal((await findSmsGateway(db, gw.id))?.driver, 'simulator');
    const missing = await call(t.app, admin.auth, 'PATCH', '/rest-api/sms-gateway/999999/', { status: 1 });
    assert.equal(missing.statusCode, 404);
  });

  test('a non-admin gets 403 on every write and changes nothing', async () => {
    const gw = await postGateway();
    for (const [method, url] of [
      ['POST', '/rest-api/sms-gateway/'],
      ['PATCH', `/rest-api/sms-gateway/${gw.id}/`],
      ['PUT', `/rest-api/sms-gateway/${gw.id}/`],
      ['DELETE', `/rest-api/sms-gateway/${gw.id}/`],
    ] as const) {
      const res = await call(t.app, alice.auth, method, url, method === 'DELETE' ? undefined : { name: unique('sgw') });
      assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
      assert.deepEqual(res.data, { detail: 'You do not have permission to perform this action.' });
    }
    assert.equal((await findSmsGateway(db, gw.id))?.name, gw.data.name);
  });

  test('a non-admin reads only the id, url and name: no settings, no secret, no callback URLs', async () => {
    const gw = await postGateway({ ...kannel, status: 0 });
    const detail = await call(t.app, alice.auth, 'GET', `/rest-api/sms-gateway/${gw.id}`);
    assert.equal(detail.statusCode, 200, detail.body);
    assert.deepEqual(detail.data, { id: gw.id, url: gw.url, name: gw.data.name });
    const list = await call(t.app, alice.auth, 'GET', '/rest-api/sms-gateway/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    assert.deepEqual(list.data.results.find((r: { id: number }) => r.id === gw.id), { id: gw.id, url: gw.url, name: gw.data.name });
    const secrets = (await db.select({ s: smsGateways.callback_secret }).from(smsGateways)).map((r) => r.s);
    for (const secret of secrets) assert.ok(!list.body.includes(secret));
  });

  test('DELETE answers 204; 409 while a START SMS campaign uses the gateway, or any SMS campaign names it', async () => {
    const free = await postGateway();
    const res = await call(t.app, admin.auth, 'DELETE', `/rest-api/sms-gateway/${free.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(await findSmsGateway(db, free.id), undefined);
    const busy = await postGateway();
    await makeAliceSmsCampaign(busy.id, CampaignStatus.Start);
    const running = await call(t.app, admin.auth, 'DELETE', `/rest-api/sms-gateway/${busy.id}/`);
    assert.equal(running.statusCode, 409, running.body);
    assert.match(running.data.detail, /running SMS campaign/);
    const named = await postGateway();
    await makeAliceSmsCampaign(named.id, CampaignStatus.End);
    const ended = await call(t.app, admin.auth, 'DELETE', `/rest-api/sms-gateway/${named.id}/`);
    assert.equal(ended.statusCode, 409, ended.body);
    assert.equal(await db.$count(smsGateways, eq(smsGateways.id, named.id)), 1);
  });

  test('every API route answers 401 without credentials; the API root lists sms-gateway but no callback', async () => {
    const gw = await postGateway();
    for (const [method, url] of [
      ['GET', '/rest-api/sms-gateway/'],
      ['POST', '/rest-api/sms-gateway/'],
      ['GET', `/rest-api/sms-gateway/${gw.id}/`],
      ['PATCH', `/rest-api/sms-gateway/${gw.id}/`],
      ['DELETE', `/rest-api/sms-gateway/${gw.id}/`],
    ] as const) {
      const res = await call(t.app, undefined, method, url, method === 'GET' || method === 'DELETE' ? undefined : {});
      assert.equal(res.statusCode, 401, `${method} ${url}: ${res.body}`);
    }
    const root = await call(t.app, alice.auth, 'GET', '/rest-api/');
    assert.equal(root.data['sms-gateway'], 'http://localhost:80/rest-api/sms-gateway/');
    assert.ok(!/report|inbound/.test(root.body), root.body);
    const openapi = await call(t.app, alice.auth, 'GET', '/rest-api/openapi.json');
    assert.ok(!/report\/|inbound\//.test(openapi.body));
  });

  test('callback routes need no credentials but the right secret: a wrong secret or gateway is 404', async () => {
    const gw = await postGateway();
    const other = await postGateway();
    const secret = (await findSmsGateway(db, gw.id))?.callback_secret as string;
    for (const url of [
      `/rest-api/sms-gateway/${gw.id}/report/${secret.slice(0, -1)}x/?id=1&type=1`,
      `/rest-api/sms-gateway/${gw.id}/report/wrong/?id=1&type=1`,
      `/rest-api/sms-gateway/${other.id}/report/${secret}/?id=1&type=1`,
      `/rest-api/sms-gateway/999999/inbound/${secret}/?from=1&to=2&text=STOP`,
      `/rest-api/sms-gateway/${gw.id}/inbound/${secret}x/?from=1&to=2&text=STOP`,
    ]) {
      const res = await call(t.app, undefined, 'GET', url);
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
    }
    const noType = await call(t.app, undefined, 'GET', `/rest-api/sms-gateway/${gw.id}/report/${secret}/?id=1`);
    assert.equal(noType.statusCode, 400, noType.body);
    assert.deepEqual(noType.data, { detail: 'type: the report type (%d) is required.' });
    const badType = await call(t.app, undefined, 'GET', `/rest-api/sms-gateway/${gw.id}/report/${secret}/?id=1&type=0`);
    assert.equal(badType.statusCode, 400, badType.body);
    const noSender = await call(t.app, undefined, 'GET', `/rest-api/sms-gateway/${gw.id}/inbound/${secret}/?text=STOP`);
    assert.equal(noSender.statusCode, 400, noSender.body);
  });

  test('a delivery report with the right secret reaches the message; an inbound message is recorded', async () => {
    const gw = await postGateway();
    const secret = (await findSmsGateway(db, gw.id))?.callback_secret as string;
    const campaign = await makeAliceSmsCampaign(gw.id, CampaignStatus.Start);
    const [message] = await db
      .insert(smsMessages)
      .values({ sms_campaign_id: campaign.id, user_id: alice.id, sms_gateway_id: gw.id, recipient_number: '+15550001111', content: 'hi', status: 'sent', gateway_message_id: '' })
      .returning();
    message.gateway_message_id = String(message.id);
    await db.update(smsMessages).set({ gateway_message_id: String(message.id) }).where(eq(smsMessages.id, message.id));
    const report = await call(t.app, undefined, 'GET', `/rest-api/sms-gateway/${gw.id}/report/${secret}/?id=${message.id}&type=1`);
    assert.equal(report.statusCode, 200, report.body);
    assert.equal(report.body, '');
    const [after] = await db.select().from(smsMessages).where(eq(smsMessages.id, message.id));
    assert.equal(after.status, 'delivered');
    assert.ok(after.delivery_date);
    // Kannel's sms-service may POST a form too.
    const inbound = await t.app.inject({
      method: 'POST',
      url: `/rest-api/sms-gateway/${gw.id}/inbound/${secret}/`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'from=%2B15550002222&to=12345&text=Hello+there',
    });
    assert.equal(inbound.statusCode, 200, inbound.body);
    const rows = await db.select().from(smsInbound).where(eq(smsInbound.sms_gateway_id, gw.id));
    assert.deepEqual(rows.map((r) => [r.sender_number, r.recipient_number, r.content]), [['+15550002222', '12345', 'Hello there']]);
  });
});
