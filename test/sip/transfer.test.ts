/**
 * A bridged transfer (gateway transfer_mode "bridge") through sipp as the carrier
 * (test/sip/bridge-carrier.xml): the A-leg's transfer sections make B-leg INVITEs through the
 * same trunk. On the first B-leg the agent speaks (sipp plays an espeak-ng recording) and the
 * A-leg's callee must hear it; on the second the callee speaks and the agent must hear it. The
 * callee's and the second agent's phones are test/sip/phone.ts (sockets of the test that sipp's
 * answers name as their media addresses). Every
 * leg's CDR, the call's answers and billing are checked. A missing sipp, espeak-ng or sox
 * fails the test.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/database.ts';
import { CallRequestStatus, LegType, SectionType, SubscriberStatus } from '../../src/db/schema.ts';
import { flowOf, section } from '../../src/engine/engine.fixtures.ts';
import { dbLabel } from '../helpers.ts';
import { runSipCampaign, sipTestFile } from './campaign.ts';
import { readWav, run, similarity } from './media/peers.ts';
import { startTracedSipp } from './peers.ts';
import { afterAPause, phone } from './phone.ts';

const { dir, db, stops } = await sipTestFile('sip-bridge-');

/** Speech by espeak-ng: the mu-law 8 kHz file sipp plays, and its 16-bit 8 kHz samples. */
async function speech(name: string, text: string): Promise<Int16Array> {
  await run('espeak-ng', ['-w', path.join(dir, `${name}-spoken.wav`), text]);
  await run('sox', [path.join(dir, `${name}-spoken.wav`), '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, `${name}.wav`)]);
  await run('sox', [path.join(dir, `${name}-spoken.wav`), '-r', '8000', '-c', '1', '-b', '16', path.join(dir, `${name}-reference.wav`)]);
  return (await readWav(path.join(dir, `${name}-reference.wav`))).pcm;
}

/**
 * sipp as the carrier (bridge-carrier.xml), the B-legs' audio to the phones at `tap` and `tap2`,
 * its SIP messages traced: a failure's message says when each came and went (its last 40). A B-leg
 * once ended 7 s late, as if its BYE or its 200's ACK went unanswered through sipp's
 * retransmissions (2026-12-07, the CI replica, once); the trace tells which next time.
 */
async function bridgeCarrier(name: string, tap: number, tap2: number) {
  const { sipp, timeline } = await startTracedSipp('bridge-carrier.xml', dir, path.join(dir, `${name}-sipp-trace.log`), ['-key', 'tap_port', String(tap), '-key', 'tap2_port', String(tap2)]);
  stops.unshift(() => sipp.stop());
  return { sipp, timeline: () => timeline().split('\n').slice(-40).join('\n') };
}

test(`transfer_mode bridge: B-leg INVITEs through the same trunk, each side hears the other through the relay, every leg has its CDR (${dbLabel})`, { timeout: 90_000 }, async () => {
  const agentSays = await speech('agent', 'Hello, this is Anna from the sales team. How can I help you today?');
  const calleeSays = await speech('callee', 'I have a question about my bill.');
  const callee = await phone({ speak: calleeSays, repeat: true });
  const listener = await phone();
  stops.push(() => callee.close(), () => listener.close());
  const { sipp, timeline } = await bridgeCarrier('bridge', callee.port, listener.port);

  // Two transfers in turn: to an agent who speaks, then to one who listens.
  const toSpeaker = section({ order: 1, type: SectionType.CallTransfer, question: 'To sales', phonenumber: '+15550012' });
  const toListener = section({ order: 2, type: SectionType.CallTransfer, question: 'To billing', phonenumber: '+15550013' });
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550011'],
    settings: { proxy: `127.0.0.1:${sipp.port}`, transfer_mode: 'bridge' },
    campaign: { survey_snapshot: flowOf([toSpeaker, toListener]), calltimeout: 5 },
    seconds: 60,
  });

  const legs = await queryRows<{ leg_type: number; phone_number: string; disposition: string; hangup_cause_q850: number; billsec: number; duration: number; call_cost: string; callid: string }>(
    db,
    sql`select leg_type, phone_number, disposition, hangup_cause_q850, billsec, duration, call_cost::text, callid from cdrs where campaign_id = ${id} order by leg_type, phone_number`,
  );
  const detail = `${JSON.stringify(legs)}\n${sipp.output().slice(-2000)}\nsipp's messages:\n${timeline()}`;
  assert.deepEqual(
    legs.map((l) => [l.leg_type, l.phone_number, l.disposition, l.hangup_cause_q850]),
    [
      [LegType.A, '+15550011', 'ANSWER', 16],
      [LegType.B, '+15550012', 'ANSWER', 16],
      [LegType.B, '+15550013', 'ANSWER', 16],
    ],
    detail,
  );
  const [aLeg, ...bLegs] = legs;
  assert.equal(new Set(legs.map((l) => l.callid)).size, 3, detail);
  // Each agent rang 1 s and hung up 6 s after answering: the B-legs' real times.
  for (const b of bLegs) assert.ok(b.billsec >= 5 && b.billsec <= 7 && b.duration - b.billsec >= 1, detail);
  // Our leg was up while both B-legs rang and talked.
  assert.ok(aLeg.billsec >= bLegs[0].duration + bLegs[1].duration, detail);
  // Every leg is billed to the campaign's owner at 0.6 a minute, by the second.
  for (const l of legs) assert.equal(Number(l.call_cost).toFixed(5), (l.billsec * 0.01).toFixed(5), detail);
  const [request] = await queryRows<{ status: number }>(db, sql`select status from callrequests where campaign_id = ${id}`);
  assert.equal(request.status, CallRequestStatus.Success);
  const answers = await queryRows<{ response: string }>(db, sql`select r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id} order by r.id`);
  assert.deepEqual(answers.map((a) => a.response), ['+15550012', '+15550013']);
  const [subscriber] = await queryRows<{ status: number }>(db, sql`select status from subscribers where campaign_id = ${id}`);
  assert.equal(subscriber.status, SubscriberStatus.Sent);

  // The callee heard the first agent, and the second agent heard the callee.
  const heardByCallee = similarity(agentSays, afterAPause(callee.pcm()));
  assert.ok(heardByCallee > 0.8, `the callee's audio against the agent's speech: median correlation ${heardByCallee.toFixed(3)} (${callee.packets()} packets)`);
  const heardByAgent = similarity(calleeSays, afterAPause(listener.pcm()));
  assert.ok(heardByAgent > 0.8, `the second agent's audio against the callee's speech: median correlation ${heardByAgent.toFixed(3)} (${listener.packets()} packets)`);
  assert.doesNotMatch(sipp.output(), /Aborted|unexpected/i, sipp.output().slice(-2000));
});

test(`transfer_mode bridge: the callee hanging up during the bridge ends the B-leg too, each leg with its times (${dbLabel})`, { timeout: 60_000 }, async () => {
  await speech('agent', 'Hello, this is Anna from the sales team. How can I help you today?');
  const callee = await phone();
  const listener = await phone();
  stops.push(() => callee.close(), () => listener.close());
  const { sipp, timeline } = await bridgeCarrier('bridge-hangup', callee.port, listener.port);
  const toSpeaker = section({ type: SectionType.CallTransfer, question: 'To sales', phonenumber: '+15550012' });
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550014'],
    settings: { proxy: `127.0.0.1:${sipp.port}`, transfer_mode: 'bridge' },
    campaign: { survey_snapshot: flowOf([toSpeaker]), calltimeout: 5 },
    seconds: 30,
  });
  const legs = await queryRows<{ leg_type: number; phone_number: string; disposition: string; hangup_cause_q850: number; billsec: number; duration: number }>(
    db,
    sql`select leg_type, phone_number, disposition, hangup_cause_q850, billsec, duration from cdrs where campaign_id = ${id} order by leg_type`,
  );
  const detail = `${JSON.stringify(legs)}\n${sipp.output().slice(-2000)}\nsipp's messages:\n${timeline()}`;
  assert.deepEqual(
    legs.map((l) => [l.leg_type, l.phone_number, l.disposition, l.hangup_cause_q850]),
    [
      [LegType.A, '+15550014', 'ANSWER', 16],
      [LegType.B, '+15550012', 'ANSWER', 16],
    ],
    detail,
  );
  const [aLeg, bLeg] = legs;
  // The callee left 4 s after answering; the B-leg, answered a second or so into that, went with them (not at its own 6 s).
  assert.ok(aLeg.billsec >= 3 && aLeg.billsec <= 5, detail);
  assert.ok(bLeg.billsec >= 1 && bLeg.billsec <= 4 && bLeg.billsec < aLeg.billsec, detail);
  assert.doesNotMatch(sipp.output(), /Aborted|unexpected/i, sipp.output().slice(-2000));
});
