/**
 * Delivery reports against a real database: a report by the gateway's message id that arrives
 * before the engine has recorded the send waits for it (bounded), and close() drains the queue.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { asc, eq } from 'drizzle-orm';
import { smsMessages } from '../db/schema.ts';
import { dbLabel, testDatabase } from '../../test/helpers.ts';
import { claimMessages } from '../engine/sms/claim.ts';
import { recordResults } from '../engine/sms/record.ts';
import type { SmsEventsOptions } from './sms-events.ts';
import { smsEvents } from './sms-events.ts';
import { ScriptedSmsDriver, smsPass, smsScenario } from '../engine/sms/sms.fixtures.ts';

const database = await testDatabase();
const db = database.db;

const messageRows = (campaignId: number) =>
  db.select().from(smsMessages).where(eq(smsMessages.sms_campaign_id, campaignId)).orderBy(asc(smsMessages.id));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** smsEvents with a short retry, keeping its warnings. */
function eventsWith(opts: SmsEventsOptions = { unmatchedRetryMs: 5_000, unmatchedEveryMs: 20 }) {
  const warnings: string[] = [];
  const log = { info: () => {}, warn: (m: string) => void warnings.push(m), error: (m: string) => console.error(m) };
  return { events: smsEvents(db, log, opts), warnings };
}

/** Whether `p` is still pending after `ms`. */
async function pendingAfter(p: Promise<unknown>, ms: number): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true), () => (settled = true));
  await sleep(ms);
  return !settled;
}

/** A scenario whose messages are claimed ('unsent', no gateway id yet) but not recorded. */
async function claimed(numbers: string[]) {
  const s = await smsScenario(db, { driver: new ScriptedSmsDriver(), numbers });
  const claim = await claimMessages(s.engine.ctx, s.campaignId);
  assert.equal(claim.messages.length, numbers.length);
  const record = (gid: (messageId: number) => string) =>
    recordResults(db, claim.messages.map((m) => ({ messageId: m.messageId, ok: true as const, gatewayMessageId: gid(m.messageId) })), s.clock.now());
  return { s, ids: claim.messages.map((m) => m.messageId), record };
}

test(`a receipt by gateway id that arrives before the send is recorded is applied once it is (${dbLabel})`, async () => {
  const { events, warnings } = eventsWith();
  const { s, ids, record } = await claimed(['+15551001']);
  const gid = `early-${ids[0]}`;
  const report = events.report(s.gatewayId, { gatewayMessageId: gid, status: 'delivered', at: s.clock.now() });
  assert.equal(await pendingAfter(report, 100), true, 'the report waits for its message');
  assert.equal(await record(() => gid), 1);
  await report;
  const [m] = await messageRows(s.campaignId);
  assert.deepEqual([m.status, m.gateway_message_id, m.send_date !== null, m.delivery_date !== null], ['delivered', gid, true, true], JSON.stringify(m));
  assert.deepEqual(warnings, []);
});

test(`an SMPP-like receipt fired during send, before the engine records the batch, makes the message delivered (${dbLabel})`, async () => {
  const { events, warnings } = eventsWith();
  const fired: Promise<void>[] = [];
  let gatewayId = 0;
  const driver = new ScriptedSmsDriver((m) => {
    fired.push(events.report(gatewayId, { gatewayMessageId: `smsc-${m.messageId}`, status: 'delivered', at: new Date() }));
    return { ok: true, gatewayMessageId: `smsc-${m.messageId}` };
  });
  const slowSend = driver.send.bind(driver);
  // The SMSC's receipt outruns the submit_sm_resp: the report is tried before the send returns.
  driver.send = async (m) => {
    const result = await slowSend(m);
    await sleep(50);
    return result;
  };
  const s = await smsScenario(db, { driver, numbers: ['+15551101', '+15551102'] });
  gatewayId = s.gatewayId;
  assert.equal(await smsPass(s), 2);
  await Promise.all(fired);
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => m.status), ['delivered', 'delivered']);
  assert.deepEqual(warnings, []);
});

test(`a receipt by gateway id that never matches is given up after the bound, with one warning (${dbLabel})`, async () => {
  const { events, warnings } = eventsWith({ unmatchedRetryMs: 150, unmatchedEveryMs: 20 });
  const { s, ids, record } = await claimed(['+15551201']);
  const started = Date.now();
  await events.report(s.gatewayId, { gatewayMessageId: 'nobody-knows', status: 'failed', error: 'UNDELIV', at: s.clock.now() });
  assert.ok(Date.now() - started >= 150, `given up after ${Date.now() - started} ms`);
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /^1 SMS delivery report\(s\) by gateway message id matched no message within 0\.15 s; dropped: gateway\/id \d+\/nobody-knows \(failed\)$/);
  await sleep(60);
  assert.equal(warnings.length, 1, 'warned once');
  // A report that finds its message but changes nothing (a late 'sent') is not an unmatched one.
  await record((id) => `known-${id}`);
  const at = Date.now();
  await events.report(s.gatewayId, { gatewayMessageId: `known-${ids[0]}`, status: 'delivered', at: s.clock.now() });
  await events.report(s.gatewayId, { gatewayMessageId: `known-${ids[0]}`, status: 'sent', at: s.clock.now() });
  assert.ok(Date.now() - at < 150, 'matched reports do not wait');
  assert.equal((await messageRows(s.campaignId))[0].status, 'delivered');
  assert.equal(warnings.length, 1, warnings.join('\n'));
});

test(`close() writes the queued reports, tries the waiting ones once more and gives up on the rest (${dbLabel})`, async () => {
  const { events, warnings } = eventsWith({ unmatchedRetryMs: 60_000, unmatchedEveryMs: 60_000 });
  const { s, ids, record } = await claimed(['+15551301', '+15551302', '+15551303', '+15551304']);
  // Waiting for their message: one will be recorded before close, one never.
  const recordedLate = events.report(s.gatewayId, { gatewayMessageId: `gw-${ids[0]}`, status: 'delivered', at: s.clock.now() });
  const never = events.report(s.gatewayId, { gatewayMessageId: 'never-sent', status: 'delivered', at: s.clock.now() });
  assert.equal(await pendingAfter(Promise.all([recordedLate, never]), 50), true);
  await record((id) => `gw-${id}`);
  // Queued in this turn, not yet written when close() is called.
  const queued = [
    events.report(s.gatewayId, { messageId: ids[1], status: 'delivered', at: s.clock.now() }),
    events.report(s.gatewayId, { gatewayMessageId: `gw-${ids[2]}`, status: 'failed', error: 'EXPIRED', at: s.clock.now() }),
  ];
  await events.close();
  assert.deepEqual((await messageRows(s.campaignId)).map((m) => [m.status, m.error]), [
    ['delivered', ''],
    ['delivered', ''],
    ['failed', 'EXPIRED'],
    ['sent', ''],
  ]);
  await Promise.all([recordedLate, never, ...queued]); // all settled by close()
  assert.equal(warnings.length, 1, warnings.join('\n'));
  assert.match(warnings[0], /matched no message \(given up at shutdown\); dropped: gateway\/id \d+\/never-sent \(delivered\)$/);
});
