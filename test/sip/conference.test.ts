/**
 * Conference (8) and queue (12) sections on a sip gateway: with no media server of ours they
 * transfer the call to the gateway's `conference_uri` / `queue_uri`, `{name}` being the
 * section's room or queue (URI-escaped), or to the section's room when that is a sip: URI
 * itself. sipp (test/sip/conf-carrier.xml) is the carrier and the room; its message trace
 * (-trace_msg) shows where each call was sent: a REFER's Refer-To with transfer_mode "refer", a
 * B-leg INVITE's Request-URI with "bridge". The surveys are made as an operator makes them
 * (survey and section templates, a queue row) and frozen by loadFlow; each campaign runs to its
 * end through the engine, and the CDRs, call request, subscriber and answers are checked. A
 * missing sipp or espeak-ng fails the test.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/database.ts';
import { CallRequestStatus, LegType, queues, SectionType, SubscriberStatus, sectionTemplates, surveyTemplates } from '../../src/db/schema.ts';
import { loadFlow, type SurveyFlow } from '../../src/campaign/survey-flow.ts';
import { makeUser, unique } from '../factories.ts';
import { dbLabel } from '../helpers.ts';
import { runSipCampaign, sipTestFile } from './campaign.ts';
import { type Peer, type SipMessage, startTracedSipp } from './peers.ts';

const { dir, db, stops } = await sipTestFile('sip-conf-');

/** sipp as the carrier and the room, with every SIP message it received or sent written to a trace. */
async function carrier(): Promise<{ sipp: Peer; messages: () => SipMessage[]; trace: () => string }> {
  const traced = await startTracedSipp('conf-carrier.xml', dir, path.join(dir, `${unique('trace')}.log`));
  stops.unshift(() => traced.sipp.stop());
  return traced;
}

/**
 * sipp's own verdict once stopped, from the statistics it prints then: calls that ran their
 * scenario branch to the end, and calls that failed (an unexpected message aborts one).
 */
function sippCalls(output: string): { successful: number; failed: number } {
  const last = (counter: string) => Number([...output.matchAll(new RegExp(`${counter}\\s*\\|[^|]*\\|\\s*(\\d+)`, 'g'))].slice(-1)[0]?.[1]);
  return { successful: last('Successful call'), failed: last('Failed call') };
}

const received = (msgs: SipMessage[], method: string) => msgs.filter((m) => m.direction === 'received' && m.start.startsWith(`${method} `));
const header = (m: SipMessage, name: string) => new RegExp(`^${name}:\\s*(.*?)\\s*$`, 'im').exec(m.text)?.[1];

/** A survey of these sections (template rows, as the API writes them), frozen as a campaign freezes it. */
async function survey(sections: Omit<typeof sectionTemplates.$inferInsert, 'survey_id' | 'order'>[]): Promise<{ flow: SurveyFlow; userId: number }> {
  const owner = await makeUser(db);
  const [s] = await db.insert(surveyTemplates).values({ name: unique('survey'), user_id: owner.id }).returning();
  await db.insert(sectionTemplates).values(sections.map((section, i) => ({ ...section, survey_id: s.id, order: i + 1 })));
  const flow = await loadFlow(db, s.id);
  assert.ok(flow);
  return { flow, userId: owner.id };
}

/** The campaign's CDRs, call request, subscriber and answers. */
async function outcome(id: number) {
  const cdrs = await queryRows<{ leg_type: number; phone_number: string; disposition: string; hangup_cause_q850: number; billsec: number; call_cost: string }>(
    db,
    sql`select leg_type, phone_number, disposition, hangup_cause_q850, billsec, call_cost::text from cdrs where campaign_id = ${id} order by leg_type, id`,
  );
  const [request] = await queryRows<{ status: number }>(db, sql`select status from callrequests where campaign_id = ${id}`);
  const [subscriber] = await queryRows<{ status: number }>(db, sql`select status from subscribers where campaign_id = ${id}`);
  const answers = await queryRows<{ question: string; response: string }>(
    db,
    sql`select r.question, r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id} order by r.id`,
  );
  return { cdrs, request, subscriber, answers: answers.map((a) => [a.question, a.response]) };
}

const after1s = { type: SectionType.MultiChoice, question: 'After the room', timeout: 1 };

test(`a conference section REFERs the callee to conference_uri with the room's name; the NOTIFY 200 ends our leg (${dbLabel})`, { timeout: 60_000 }, async () => {
  const { sipp, messages, trace } = await carrier();
  const room = `sip:conf-{name}@127.0.0.1:${sipp.port}`;
  const { flow } = await survey([{ type: SectionType.Conference, question: 'Joining the sales room', conference: 'sales7' }, after1s]);
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550021'],
    settings: { proxy: `127.0.0.1:${sipp.port}`, conference_uri: room, queue_uri: `sip:queue-{name}@127.0.0.1:${sipp.port}` },
    campaign: { survey_snapshot: flow, calltimeout: 5, callmaxduration: 25 },
    seconds: 40,
  });
  await sipp.stop();
  const msgs = messages();
  const detail = `${JSON.stringify(await outcome(id))}\n${trace().slice(-3000)}\n${sipp.output().slice(-1500)}`;

  const refers = received(msgs, 'REFER');
  assert.equal(refers.length, 1, detail);
  assert.equal(header(refers[0], 'Refer-To'), `<sip:conf-sales7@127.0.0.1:${sipp.port}>`, detail);
  assert.deepEqual(received(msgs, 'INVITE').map((m) => m.start), [`INVITE sip:+15550021@127.0.0.1:${sipp.port} SIP/2.0`], detail);
  assert.equal(received(msgs, 'BYE').length, 1, detail);

  const o = await outcome(id);
  // Our leg ended by the REFER's success (NORMAL_CLEARING), not at callmaxduration; the survey
  // went no further. The room is the carrier's: there is no B-leg of ours to record.
  assert.deepEqual(o.cdrs.map((c) => [c.leg_type, c.phone_number, c.disposition, c.hangup_cause_q850]), [[LegType.A, '+15550021', 'ANSWER', 16]], detail);
  assert.ok(o.cdrs[0].billsec >= 1 && o.cdrs[0].billsec <= 8, detail);
  assert.equal(Number(o.cdrs[0].call_cost).toFixed(5), (o.cdrs[0].billsec * 0.01).toFixed(5), detail);
  assert.deepEqual(o.answers, [['Joining the sales room', 'sales7']], detail);
  assert.equal(o.request.status, CallRequestStatus.Success, detail);
  assert.equal(o.subscriber.status, SubscriberStatus.Sent, detail);
  assert.deepEqual(sippCalls(sipp.output()), { successful: 1, failed: 0 }, detail);
  assert.doesNotMatch(sipp.output(), /Abort/i, detail);
});

test(`a queue section with transfer_mode bridge INVITEs queue_uri with the queue's name escaped; when the queue lets go the survey goes on (${dbLabel})`, { timeout: 60_000 }, async () => {
  const { sipp, messages, trace } = await carrier();
  const owner = await makeUser(db);
  const [queue] = await db.insert(queues).values({ name: 'Customer Care', user_id: owner.id }).returning();
  const { flow } = await survey([{ type: SectionType.Queue, question: 'Please hold', queue_id: queue.id }, after1s]);
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550022'],
    settings: {
      proxy: `127.0.0.1:${sipp.port}`,
      transfer_mode: 'bridge',
      conference_uri: `sip:conf-{name}@127.0.0.1:${sipp.port}`,
      queue_uri: `sip:queue-{name}@127.0.0.1:${sipp.port}`,
    },
    campaign: { survey_snapshot: flow, calltimeout: 5, callmaxduration: 25 },
    seconds: 40,
  });
  await sipp.stop();
  const msgs = messages();
  const detail = `${JSON.stringify(await outcome(id))}\n${trace().slice(-3000)}\n${sipp.output().slice(-1500)}`;

  const invites = received(msgs, 'INVITE');
  assert.deepEqual(
    invites.map((m) => m.start),
    [`INVITE sip:+15550022@127.0.0.1:${sipp.port} SIP/2.0`, `INVITE sip:queue-Customer%20Care@127.0.0.1:${sipp.port} SIP/2.0`],
    detail,
  );
  assert.equal(received(msgs, 'REFER').length, 0, detail);
  // The queue let the B-leg go (sipp sent that BYE); then we hung up the A-leg, after the survey's last section.
  const [aLeg, bLeg] = invites.map((m) => header(m, 'Call-ID'));
  const byes = msgs.filter((m) => m.start.startsWith('BYE '));
  assert.deepEqual(byes.map((m) => [m.direction, header(m, 'Call-ID')]), [['sent', bLeg], ['received', aLeg]], detail);

  const o = await outcome(id);
  assert.deepEqual(o.cdrs.map((c) => [c.leg_type, c.phone_number, c.disposition, c.hangup_cause_q850]), [[LegType.A, '+15550022', 'ANSWER', 16]], detail);
  // Up through the queue's ring (1 s) and its 2 s, then the next section; not left in silence until callmaxduration.
  assert.ok(o.cdrs[0].billsec >= 4 && o.cdrs[0].billsec <= 14, detail);
  assert.deepEqual(o.answers, [['Please hold', 'Customer Care'], ['After the room', '']], detail);
  assert.equal(o.request.status, CallRequestStatus.Success, detail);
  assert.equal(o.subscriber.status, SubscriberStatus.Sent, detail);
  assert.deepEqual(sippCalls(sipp.output()), { successful: 2, failed: 0 }, detail);
  assert.doesNotMatch(sipp.output(), /Abort/i, detail);
});

test(`without conference_uri a conference section is passed over; a room that is itself a sip: URI is REFERred to as it is (${dbLabel})`, { timeout: 60_000 }, async () => {
  const { sipp, messages, trace } = await carrier();
  const direct = `sip:conf-direct@127.0.0.1:${sipp.port}`;
  const { flow } = await survey([
    { type: SectionType.Conference, question: 'No room here', conference: 'sales7' },
    { type: SectionType.Conference, question: 'Joining the direct room', conference: direct },
  ]);
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550021'],
    settings: { proxy: `127.0.0.1:${sipp.port}` },
    campaign: { survey_snapshot: flow, calltimeout: 5, callmaxduration: 25 },
    seconds: 40,
  });
  await sipp.stop();
  const msgs = messages();
  const detail = `${JSON.stringify(await outcome(id))}\n${trace().slice(-3000)}\n${sipp.output().slice(-1500)}`;

  const refers = received(msgs, 'REFER');
  assert.deepEqual(refers.map((m) => header(m, 'Refer-To')), [`<${direct}>`], detail);
  assert.equal(received(msgs, 'INVITE').length, 1, detail);

  const o = await outcome(id);
  assert.deepEqual(o.cdrs.map((c) => [c.leg_type, c.phone_number, c.disposition, c.hangup_cause_q850]), [[LegType.A, '+15550021', 'ANSWER', 16]], detail);
  assert.deepEqual(o.answers, [['No room here', 'sales7'], ['Joining the direct room', direct]], detail);
  assert.equal(o.request.status, CallRequestStatus.Success, detail);
  assert.equal(o.subscriber.status, SubscriberStatus.Sent, detail);
  assert.deepEqual(sippCalls(sipp.output()), { successful: 1, failed: 0 }, detail);
  assert.doesNotMatch(sipp.output(), /Abort/i, detail);
});
