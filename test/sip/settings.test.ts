/**
 * A sip gateway's settings are checked when it is written (contract §7) and its password is
 * write-only (contract §3), through the gateway resource.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeUser, unique } from '../factories.ts';
import { call, dbLabel, testApp } from '../helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });

test(`POST a sip gateway with bad settings answers 400 naming each; good ones are stored with the password masked (${dbLabel})`, async () => {
  const bad = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', {
    name: unique('gw'),
    driver: 'sip',
    settings: { transport: 'tls', codecs: ['G729'], rtp_ports: '30000-20000', cps: -1 },
  });
  assert.equal(bad.statusCode, 400, bad.body);
  const messages = (bad.data.settings as string[]).join('\n');
  for (const field of ['transport', 'codecs', 'rtp_ports', 'cps', 'proxy']) assert.match(messages, new RegExp(`^${field}:`, 'm'), messages);

  const good = await call(t.app, admin.auth, 'POST', '/rest-api/gateway/', {
    name: unique('gw'),
    driver: 'sip',
    gateways: 'sip2.carrier.example:5060',
    settings: { proxy: 'sip.carrier.example', username: 'acme', password: 's3cret', codecs: ['PCMA', 'PCMU'], cps: 5, transfer_mode: 'bridge' },
  });
  assert.equal(good.statusCode, 201, good.body);
  assert.equal(good.data.settings.password, '********');
  assert.ok(!good.body.includes('s3cret'), good.body);
});
