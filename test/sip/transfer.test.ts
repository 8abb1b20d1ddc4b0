/**
 * A bridged transfer (gateway transfer_mode "bridge") through sipp as the carrier
 * (test/sip/bridge-carrier.xml): the A-leg's transfer section makes a B-leg INVITE through the
 * same trunk, the agent on the B-leg speaks (sipp plays an espeak-ng recording), and what the
 * A-leg's callee hears (the RTP we send on the A-leg, kept by a UDP socket of the test that
 * sipp's answer names as its media address) must be that speech, relayed. Both legs' CDRs,
 * the callrequest and billing are checked. A missing sipp, espeak-ng or sox fails the test.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/database.ts';
import { CallRequestStatus, LegType, SectionType, SubscriberStatus } from '../../src/db/schema.ts';
import { decodeG711 } from '../../src/engine/drivers/sip/media/g711.ts';
import { flowOf, section } from '../../src/engine/engine.fixtures.ts';
import { dbLabel, testDatabase } from '../helpers.ts';
import { runSipCampaign } from './campaign.ts';
import { level, readWav, run, similarity } from './media/peers.ts';
import { type Peer, startSipp } from './peers.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sip-bridge-'));
const database = await testDatabase();
const db = database.db;
const stops: (() => unknown)[] = [];
after(async () => {
  for (const stop of stops) await stop();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A UDP socket on loopback keeping the audio of the RTP packets it gets (G.711, as sent). */
async function rtpSink(): Promise<{ port: number; packets: () => number; pcm: () => Int16Array }> {
  const socket = dgram.createSocket('udp4');
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
  stops.push(() => socket.close());
  const frames: Int16Array[] = [];
  socket.on('message', (msg) => {
    const pt = msg[1] & 0x7f;
    if (msg.length > 12 && (pt === 0 || pt === 8)) frames.push(decodeG711(pt, msg.subarray(12)));
  });
  return {
    port: socket.address().port,
    packets: () => frames.length,
    pcm: () => {
      const all = new Int16Array(frames.reduce((n, f) => n + f.length, 0));
      let at = 0;
      for (const f of frames) {
        all.set(f, at);
        at += f.length;
      }
      return all;
    },
  };
}

/** `pcm` from a little before its first sound (the relay starts seconds into the A-leg). */
function fromFirstSound(pcm: Int16Array): Int16Array {
  for (let i = 0; i + 160 <= pcm.length; i += 160) if (level(pcm.subarray(i, i + 160)) > 300) return pcm.subarray(Math.max(0, i - 800));
  return new Int16Array(0);
}

test(`transfer_mode bridge: a B-leg INVITE through the same trunk, the agent's audio relayed to the callee, both legs' CDRs (${dbLabel})`, { timeout: 90_000 }, async () => {
  const text = 'Hello, this is Anna from the sales team. How can I help you today?';
  await run('espeak-ng', ['-w', path.join(dir, 'agent-spoken.wav'), text]);
  await run('sox', [path.join(dir, 'agent-spoken.wav'), '-r', '8000', '-c', '1', '-e', 'u-law', path.join(dir, 'agent.wav')]);
  await run('sox', [path.join(dir, 'agent-spoken.wav'), '-r', '8000', '-c', '1', '-b', '16', path.join(dir, 'reference.wav')]);
  const reference = await readWav(path.join(dir, 'reference.wav'));
  const tap = await rtpSink();
  const sipp: Peer = await startSipp('bridge-carrier.xml', dir, ['-key', 'tap_port', String(tap.port)]);
  stops.unshift(() => sipp.stop());

  const transfer = section({ type: SectionType.CallTransfer, question: 'To sales', phonenumber: '+15550012' });
  const id = await runSipCampaign(db, dir, {
    numbers: ['+15550011'],
    settings: { proxy: `127.0.0.1:${sipp.port}`, transfer_mode: 'bridge' },
    campaign: { survey_snapshot: flowOf([transfer]), calltimeout: 5 },
    seconds: 40,
  });

  const legs = await queryRows<{ leg_type: number; phone_number: string; disposition: string; hangup_cause_q850: number; billsec: number; duration: number; call_cost: string; callid: string }>(
    db,
    sql`select leg_type, phone_number, disposition, hangup_cause_q850, billsec, duration, call_cost::text, callid from cdrs where campaign_id = ${id} order by leg_type`,
  );
  const detail = `${JSON.stringify(legs)}\n${sipp.output().slice(-2000)}`;
  assert.deepEqual(
    legs.map((l) => [l.leg_type, l.phone_number, l.disposition, l.hangup_cause_q850]),
    [
      [LegType.A, '+15550011', 'ANSWER', 16],
      [LegType.B, '+15550012', 'ANSWER', 16],
    ],
    detail,
  );
  const [aLeg, bLeg] = legs;
  assert.notEqual(aLeg.callid, bLeg.callid);
  // The agent rang 1 s and hung up 5 s after answering: the B-leg's real times.
  assert.ok(bLeg.billsec >= 4 && bLeg.billsec <= 6 && bLeg.duration - bLeg.billsec >= 1, detail);
  // Our leg was up while the B-leg rang and talked.
  assert.ok(aLeg.billsec >= bLeg.duration, detail);
  // Both legs are billed to the campaign's owner at 0.6 a minute, by the second.
  for (const l of legs) assert.equal(Number(l.call_cost).toFixed(5), (l.billsec * 0.01).toFixed(5), detail);
  const [request] = await queryRows<{ status: number }>(db, sql`select status from callrequests where campaign_id = ${id}`);
  assert.equal(request.status, CallRequestStatus.Success);
  const [answer] = await queryRows<{ response: string }>(db, sql`select r.response from call_results r join callrequests c on c.id = r.callrequest_id where c.campaign_id = ${id}`);
  assert.equal(answer?.response, '+15550012');
  const [subscriber] = await queryRows<{ status: number }>(db, sql`select status from subscribers where campaign_id = ${id}`);
  assert.equal(subscriber.status, SubscriberStatus.Sent);

  // The callee heard the agent: the A-leg's RTP carries the B-leg's speech.
  const heard = fromFirstSound(tap.pcm());
  assert.ok(tap.packets() > 100, `${tap.packets()} packets on the A-leg`);
  const match = similarity(reference.pcm, heard);
  assert.ok(match > 0.8, `A-leg audio against the agent's speech: median correlation ${match.toFixed(3)} (${heard.length} samples after the first sound)`);
  assert.doesNotMatch(sipp.output(), /Aborted|unexpected/i, sipp.output().slice(-2000));
});
