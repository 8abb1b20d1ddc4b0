/**
 * The Kannel driver against a real Kannel: bearerbox, smsbox and fakesmsc (Debian's kannel and
 * kannel-extras) on loopback ports, with this API listening on loopback for Kannel's callbacks.
 * A message sent through the driver reaches fakesmsc, Kannel's delivery reports come back to
 * the gateway's report URL and update the message, and an MO "STOP" from fakesmsc reaches the
 * inbound URL. Missing Kannel binaries fail the test (CI installs them), they do not skip it.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { CampaignStatus, smsCampaigns, smsInbound, smsMessages } from '../../db/schema.ts';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, freePort, testApp } from '../../../test/helpers.ts';
import { findSmsGateway } from '../../resources/sms-gateway/sms-gateway.kind.ts';
import { KannelDriver } from './kannel.ts';

const BEARERBOX = '/usr/sbin/bearerbox';
const SMSBOX = '/usr/sbin/smsbox';
const FAKESMSC = '/usr/lib/kannel/test/fakesmsc';

const t = await testApp();
const { db } = t.database;
const admin = await makeUser(db, { admin: true });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kannel-test-'));
const children: ChildProcess[] = [];
/** Everything fakesmsc printed (the MT messages it received among it). */
let fakeOutput = '';

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}; fakesmsc said:\n${fakeOutput.slice(-2000)}\n${kannelOutput()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The ends of what bearerbox and smsbox printed and logged, for a failure's message. */
function kannelOutput(): string {
  return ['bearerbox.out', 'bearerbox.log', 'smsbox.out', 'smsbox.log']
    .filter((name) => fs.existsSync(path.join(dir, name)))
    .map((name) => `${name}:\n${fs.readFileSync(path.join(dir, name), 'utf8').slice(-1500)}`)
    .join('\n');
}

const answers = (url: string) => async () => {
  try {
    await fetch(url, { signal: AbortSignal.timeout(500) });
    return true;
  } catch {
    return false;
  }
};

function start(command: string, args: string[], name: string): ChildProcess {
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  const log = fs.createWriteStream(path.join(dir, `${name}.out`));
  child.stdout?.pipe(log);
  child.stderr?.on('data', (chunk: Buffer) => {
    log.write(chunk);
    if (name === 'fakesmsc') fakeOutput += chunk.toString();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    if (name === 'fakesmsc') fakeOutput += chunk.toString();
  });
  return child;
}

/** Stops a child by its pid: SIGTERM, then SIGKILL if it has not exited within 5 s. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

let driver: KannelDriver;
let gatewayId = 0;
let campaignId = 0;

before(async () => {
  const missing = [BEARERBOX, SMSBOX, FAKESMSC].filter((file) => !fs.existsSync(file));
  if (missing.length) {
    throw new Error(`Kannel is not installed (missing ${missing.join(', ')}): apt-get install -y --no-install-recommends kannel kannel-extras`);
  }
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const appPort = (t.app.server.address() as AddressInfo).port;
  const [adminPort, boxPort, smscPort, sendsmsPort] = [await freePort(), await freePort(), await freePort(), await freePort()];

  const created = await call(t.app, admin.auth, 'POST', '/rest-api/sms-gateway/', {
    name: unique('kannel'),
    driver: 'kannel',
    settings: {
      sendsms_url: `http://127.0.0.1:${sendsmsPort}/cgi-bin/sendsms`,
      username: 'dialer',
      password: 'Send-Secret',
      smsc_id: 'fake1',
      callback_base_url: `http://127.0.0.1:${appPort}`,
    },
  });
  assert.equal(created.statusCode, 201, created.body);
  gatewayId = created.data.id;
  const gateway = await findSmsGateway(db, gatewayId);
  assert.ok(gateway);
  driver = new KannelDriver(gateway as never);

  fs.writeFileSync(
    path.join(dir, 'kannel.conf'),
    [
      'group = core',
      `admin-port = ${adminPort}`,
      'admin-interface = 127.0.0.1',
      'admin-password = admin-pass',
      `smsbox-port = ${boxPort}`,
      'smsbox-interface = 127.0.0.1',
      'box-allow-ip = 127.0.0.1',
      `log-file = "${dir}/bearerbox.log"`,
      'log-level = 1',
      'dlr-storage = internal',
      '',
      'group = smsc',
      'smsc = fake',
      'smsc-id = fake1',
      `port = ${smscPort}`,
      'connect-allow-ip = 127.0.0.1',
      '',
      'group = smsbox',
      'bearerbox-host = 127.0.0.1',
      `bearerbox-port = ${boxPort}`,
      `sendsms-port = ${sendsmsPort}`,
      'sendsms-interface = 127.0.0.1',
      `log-file = "${dir}/smsbox.log"`,
      'log-level = 1',
      '',
      'group = sendsms-user',
      'username = dialer',
      'password = Send-Secret',
      'max-messages = 10',
      'concatenation = true',
      '',
      // MO messages: every keyword goes to the gateway's inbound URL; no reply SMS (max-messages 0).
      'group = sms-service',
      'keyword = default',
      'catch-all = true',
      'max-messages = 0',
      `get-url = "${created.data.inbound_url}?from=%p&to=%P&text=%a"`,
      '',
    ].join('\n'),
  );

  start(BEARERBOX, ['kannel.conf'], 'bearerbox');
  await waitFor('bearerbox', answers(`http://127.0.0.1:${adminPort}/status?password=admin-pass`));
  start(SMSBOX, ['kannel.conf'], 'smsbox');
  await waitFor('smsbox', answers(`http://127.0.0.1:${sendsmsPort}/`));
  // fakesmsc sends one MO "STOP" when it connects, then prints every MT message it receives.
  start(FAKESMSC, ['-H', '127.0.0.1', '-r', String(smscPort), '-m', '1', '15550100001 12345 text STOP'], 'fakesmsc');

  const [campaign] = await db
    .insert(smsCampaigns)
    .values({ name: unique('sms'), sms_campaign_code: unique('s'), user_id: admin.id, status: CampaignStatus.Start, sms_gateway_id: gatewayId, text_message: 'x' })
    .returning();
  campaignId = campaign.id;
});

after(async () => {
  for (const child of children.reverse()) await stop(child);
  fs.rmSync(dir, { recursive: true, force: true });
});

/** An sms_messages row as the SMS engine writes it before the send. */
async function messageRow(to: string, text: string) {
  const [row] = await db
    .insert(smsMessages)
    .values({ sms_campaign_id: campaignId, user_id: admin.id, sms_gateway_id: gatewayId, recipient_number: to, content: text, status: 'sent' })
    .returning();
  return row;
}

const statusOf = async (id: number) => (await db.select().from(smsMessages).where(eq(smsMessages.id, id)))[0];

describe(`Kannel driver with real bearerbox, smsbox and fakesmsc (${dbLabel})`, () => {
  test('a GSM message reaches fakesmsc, and its delivery reports come back to the report URL', async () => {
    const row = await messageRow('15550200002', 'Hello from the dialer');
    const result = await driver.send({ messageId: row.id, to: row.recipient_number, from: '12345', text: row.content });
    assert.deepEqual(result, { ok: true, gatewayMessageId: String(row.id) });
    await waitFor('fakesmsc to receive the message', () => fakeOutput.includes('<12345 15550200002 text Hello from the dialer>'));
    await waitFor('the delivery report', async () => (await statusOf(row.id)).status === 'delivered');
    assert.ok((await statusOf(row.id)).delivery_date);
  });

  test('a UCS-2 text is sent with coding=2: fakesmsc receives it as ucs-2', async () => {
    const text = 'Привет, мир';
    const row = await messageRow('15550200003', text);
    const result = await driver.send({ messageId: row.id, to: row.recipient_number, from: '12345', text });
    assert.equal(result.ok, true, JSON.stringify(result));
    await waitFor('fakesmsc to receive the UCS-2 message', () => /<12345 15550200003 ucs-2 [^>]+>/.test(fakeOutput));
    const encoded = /<12345 15550200003 ucs-2 ([^>]+)>/.exec(fakeOutput)?.[1] ?? '';
    // fakesmsc prints the UTF-16BE bytes URL-encoded ('+' for the byte 0x20).
    const bytes = Buffer.from(encoded.replace(/\+/g, ' ').replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1');
    assert.equal(bytes.swap16().toString('utf16le'), text);
  });

  test('an MO "STOP" from fakesmsc reaches the inbound URL', async () => {
    await waitFor('the inbound message', async () => (await db.select().from(smsInbound).where(eq(smsInbound.sms_gateway_id, gatewayId))).length > 0);
    const [row] = await db.select().from(smsInbound).where(eq(smsInbound.sms_gateway_id, gatewayId));
    assert.match(row.sender_number, /15550100001$/);
    assert.deepEqual([row.content, row.opt_out], ['STOP', 'STOP']);
  });

  test('Kannel refusing the credentials is a failure without retry', async () => {
    const gateway = await findSmsGateway(db, gatewayId);
    const wrong = new KannelDriver({ ...(gateway as never as { settings: Record<string, unknown> }), settings: { ...(gateway?.settings as object), password: 'nope' } } as never);
    const result = await wrong.send({ messageId: 999_999, to: '15550200004', from: '12345', text: 'never' });
    assert.equal(result.ok, false);
    assert.match((result as { error: string }).error, /^kannel: HTTP 403 /);
    assert.equal((result as { retry: boolean }).retry, false);
  });
});
