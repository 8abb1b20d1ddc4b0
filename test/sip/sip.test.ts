/**
 * The sip driver against real SIP software as the carrier: sipp (test/sip/carrier.xml) answering,
 * hanging up, refusing (486, 404, 503 Retry-After) or ringing out, and kamailio
 * (test/sip/kamailio.cfg) in front with digest auth, a CPS limit and a dispatcher failing over
 * between two sipp. Campaigns run through the engine to their end on the test database, and the
 * subscribers, call requests, CDRs and billing are checked.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/database.ts';
import { CallRequestStatus, CampaignStatus, SectionType, SubscriberStatus } from '../../src/db/schema.ts';
import { flowOf, section } from '../../src/engine/engine.fixtures.ts';
import { dbLabel, testDatabase } from '../helpers.ts';
import { type CampaignValues, runSipCampaign } from './campaign.ts';
import { freeUdpPort, type Peer, startKamailio, startSipp } from './peers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sip-driver-'));
const database = await testDatabase();
const db = database.db;
const peers: Peer[] = [];
after(async () => {
  await Promise.all(peers.map((p) => p.stop()));
  fs.rmSync(dir, { recursive: true, force: true });
});

async function peer(started: Promise<Peer>): Promise<Peer> {
  const p = await started;
  peers.push(p);
  return p;
}

const pressOne = section({ type: SectionType.MultiChoice, question: 'Press 1', timeout: 4, keys: [null, 'yes', ...Array(8).fill(null)] });

/** A campaign on a sip gateway run to its end; its survey asks for key 1 unless told otherwise. */
const runCampaign = (numbers: string[], settings: Record<string, unknown>, campaign: CampaignValues, seconds: number, gateways = ''): Promise<number> =>
  runSipCampaign(db, dir, { numbers, settings, campaign: { survey_snapshot: flowOf([pressOne]), ...campaign }, seconds, gateways });

interface CdrRow {
  phone_number: string;
  hangup_cause_q850: number;
  disposition: string;
  billsec: number;
  duration: number;
  call_cost: string;
}
const cdrsOf = (id: number) =>
  queryRows<CdrRow>(db, sql`select phone_number, hangup_cause_q850, disposition, billsec, duration, call_cost::text from cdrs where campaign_id = ${id} order by phone_number, id`);
const subscribersOf = (id: number) =>
  queryRows<{ duplicate_contact: string; status: number; count_attempt: number }>(db, sql`select duplicate_contact, status, count_attempt from subscribers where campaign_id = ${id} order by duplicate_contact`);
const requestsOf = (id: number) =>
  queryRows<{ phone_number: string; status: number; call_time: string }>(db, sql`select phone_number, status, call_time::text from callrequests where campaign_id = ${id} order by phone_number, id`);

test(`a campaign through sipp as the carrier ends with each SIP answer's disposition, Q.850 cause, real billsec and billing (${dbLabel})`, { timeout: 90_000 }, async () => {
  const sipp = await peer(startSipp('carrier.xml', dir));
  const numbers = ['+15550001', '+15550002', '+15550003', '+15550004', '+15550005', '+15550006', '+15550007'];
  const id = await runCampaign(numbers, { proxy: `127.0.0.1:${sipp.port}`, cps: 20 }, { maxretry: 1, intervalretry: 1 }, 40);
  const cdrs = await cdrsOf(id);
  const byNumber = (n: string) => cdrs.filter((c) => c.phone_number === n);
  const detail = JSON.stringify(cdrs, null, 1);
  const [campaign] = await queryRows<{ status: number; user_id: number }>(db, sql`select status, user_id from campaigns where id = ${id}`);
  assert.equal(campaign.status, CampaignStatus.End, detail);
  // First attempts: answered / 486 / 404 / 503 / rang out (CANCEL, 487) / callee hung up / key 1 by INFO.
  assert.deepEqual(
    numbers.map((n) => [n, byNumber(n)[0]?.hangup_cause_q850, byNumber(n)[0]?.disposition]),
    [
      ['+15550001', 16, 'ANSWER'],
      ['+15550002', 17, 'BUSY'],
      ['+15550003', 1, 'FAILED'],
      ['+15550004', 34, 'CONGESTION'],
      ['+15550005', 19, 'NOANSWER'],
      ['+15550006', 16, 'ANSWER'],
      ['+15550007', 16, 'ANSWER'],
    ],
    detail,
  );
  // Unanswered numbers were tried again (maxretry 1), answered ones not, nor the unallocated
  // number (404, Q.850 1: never retried, issue 16 §2).
  assert.deepEqual(numbers.map((n) => byNumber(n).length), [1, 2, 1, 2, 2, 1, 1], detail);
  // sipp rings 1 s, then hangs up 2 s after answering: billsec counts from the real answer.
  const hungUp = byNumber('+15550006')[0];
  assert.ok(hungUp.billsec >= 2 && hungUp.billsec <= 3 && hungUp.duration - hungUp.billsec >= 1, detail);
  // No key: the question waits its 4 s timeout after the 1 s ring, then we hang up.
  assert.ok(byNumber('+15550001')[0].billsec >= 4, detail);
  const subs = await subscribersOf(id);
  assert.deepEqual(
    subs.map((s) => [s.duplicate_contact, s.status]),
    [
      ['+15550001', SubscriberStatus.Sent],
      ['+15550002', SubscriberStatus.Fail],
      ['+15550003', SubscriberStatus.Fail],
      ['+15550004', SubscriberStatus.Fail],
      ['+15550005', SubscriberStatus.Fail],
      ['+15550006', SubscriberStatus.Sent],
      ['+15550007', SubscriberStatus.Sent],
    ],
  );
  const requests = await requestsOf(id);
  assert.equal(requests.filter((r) => r.status === CallRequestStatus.Success).length, 3, JSON.stringify(requests));
  // The 503 said Retry-After: 3 — its retry was not dialled before the pause was over.
  const congested = requests.filter((r) => r.phone_number === '+15550004').map((r) => new Date(r.call_time).getTime());
  assert.ok(congested[1] - congested[0] >= 2900, JSON.stringify(requests));
  const [response] = await queryRows<{ response: string }>(db, sql`select r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id} and c.phone_number = '+15550007'`);
  assert.equal(response?.response, '1');
  // Billing: 0.6 a minute, exact seconds: 0.01 a second answered, nothing for the rest.
  const billed = cdrs.reduce((sum, c) => sum + Number(c.call_cost), 0);
  assert.equal(billed.toFixed(5), (cdrs.reduce((sum, c) => sum + (c.disposition === 'ANSWER' ? c.billsec : 0), 0) * 0.01).toFixed(5), detail);
  const [user] = await queryRows<{ balance: string }>(db, sql`select balance::text from users where id = ${campaign.user_id}`);
  assert.equal(Number(user.balance).toFixed(5), (100 - billed).toFixed(5));
});

test(`a proxy that does not answer is skipped for the next one of the gateway's gateways field (${dbLabel})`, { timeout: 60_000 }, async () => {
  const sipp = await peer(startSipp('carrier.xml', dir));
  const silent = await freeUdpPort(); // nobody listens there
  const id = await runCampaign(['+15560006'], { proxy: `127.0.0.1:${silent}`, failover_seconds: 1 }, {}, 20, `127.0.0.1:${sipp.port}`);
  const [cdr] = await cdrsOf(id);
  assert.equal(cdr?.disposition, 'ANSWER', JSON.stringify(cdr));
  assert.ok(cdr.duration - cdr.billsec >= 2, 'one second of silence, then one of ringing');
});

test(`through kamailio: digest auth, a dispatcher failing over to the live sipp, and a CPS limit the driver keeps to (${dbLabel})`, { timeout: 90_000 }, async () => {
  const sipp = await peer(startSipp('carrier.xml', dir));
  const dead = await freeUdpPort();
  const kamailio = await peer(startKamailio(dir, { targets: [dead, sipp.port], user: 'acme', password: 's3cret', cps: 2 }));
  const numbers = ['+15570006', '+15571006', '+15572006', '+15573006', '+15574006', '+15575006'];
  const auth = { proxy: `127.0.0.1:${kamailio.port}`, username: 'acme', password: 's3cret' };
  const id = await runCampaign(numbers, { ...auth, cps: 2, register: true }, {}, 40);
  const cdrs = await cdrsOf(id);
  assert.deepEqual(cdrs.map((c) => c.disposition), Array(6).fill('ANSWER'), `${JSON.stringify(cdrs)}\n${kamailio.output().slice(-3000)}`);
  assert.doesNotMatch(kamailio.output(), /OVER CPS LIMIT/);
  // It registered (after a 401 challenge) and unregistered when the driver closed.
  assert.match(kamailio.output(), /REGISTERED acme expires=3600/);
  for (let i = 0; i < 40 && !/REGISTERED acme expires=0/.test(kamailio.output()); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  assert.match(kamailio.output(), /REGISTERED acme expires=0/);
  // The same calls with the driver allowed 20 setups a second: kamailio refuses what is over 2.
  const eager = await runCampaign(numbers.map((n) => n.replace('+1557', '+1558')), { ...auth, cps: 20 }, {}, 40);
  const refused = (await cdrsOf(eager)).filter((c) => c.disposition === 'CONGESTION');
  assert.ok(refused.length > 0, kamailio.output().split("\n").filter((l) => /SETUP|OVER/.test(l)).join("\n"));
  // A wrong password is challenged again and the call fails as rejected (21).
  const wrong = await runCampaign(['+15590006'], { ...auth, password: 'wrong' }, {}, 20);
  assert.deepEqual((await cdrsOf(wrong)).map((c) => [c.hangup_cause_q850, c.disposition]), [[21, 'REJECTED']]);
});

test(`a transfer section REFERs the callee to the number; the carrier's NOTIFY 200 makes the B-leg CDR and ends our leg (${dbLabel})`, { timeout: 60_000 }, async () => {
  const sipp = await peer(startSipp('carrier.xml', dir));
  const transfer = section({ type: SectionType.CallTransfer, question: 'Transferring', phonenumber: '15559999' });
  const id = await runCampaign(['+15550008'], { proxy: `127.0.0.1:${sipp.port}` }, { survey_snapshot: flowOf([transfer]) }, 20);
  const legs = await queryRows<{ leg_type: number; disposition: string; phone_number: string }>(
    db,
    sql`select leg_type, disposition, phone_number from cdrs where campaign_id = ${id} order by leg_type`,
  );
  assert.deepEqual(legs.map((l) => [l.leg_type, l.disposition]), [[1, 'ANSWER'], [2, 'ANSWER']], JSON.stringify(legs));
  assert.doesNotMatch(sipp.output(), /Aborted|unexpected/i, sipp.output().slice(-2000));
});

test(`key 1 sent by the carrier as an RFC 4733 event (on payload type 96, as we offer) takes the survey's branch for key 1 (${dbLabel})`, { timeout: 60_000 }, async () => {
  const sipp = await peer(startSipp('carrier.xml', dir));
  const keys = [null, 'yes', 'no', ...Array(7).fill(null)];
  const branchOne = section({ order: 3, type: SectionType.MultiChoice, question: 'Branch one', timeout: 1, keys });
  const next = section({ order: 2, type: SectionType.MultiChoice, question: 'Next in order', timeout: 1, keys });
  const choice = section({ order: 1, type: SectionType.MultiChoice, question: 'Press 1', timeout: 4, keys, branches: [{ id: 1, keys: '1', goto: branchOne.id }] });
  const id = await runCampaign(['+15550009'], { proxy: `127.0.0.1:${sipp.port}` }, { survey_snapshot: flowOf([choice, next, branchOne]) }, 20);
  const results = await queryRows<{ question: string; response: string | null }>(
    db,
    sql`select r.question, r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id} order by r.id`,
  );
  assert.deepEqual(results.map((r) => [r.question, r.response]), [['Press 1', '1'], ['Branch one', '']], `${JSON.stringify(results)}\n${sipp.output().slice(-2000)}`);
  assert.doesNotMatch(sipp.output(), /Aborted|unexpected/i, sipp.output().slice(-2000));
});
