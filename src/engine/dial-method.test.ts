/**
 * dial_method, agent_dial_rate and max_xfer act (issue 16, item 10): power dialing places
 * agent_dial_rate calls per line of max_aleg, and max_xfer caps a campaign's transfers at once.
 * Through the engine with the scripted driver and a fake clock.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DialMethod, SectionType } from '../db/schema.ts';
import { dbLabel, eventually, testDatabase } from '../../test/helpers.ts';
import { flowOf, scenario, section } from './engine.fixtures.ts';

const database = await testDatabase();
const db = database.db;

const numbers = ['+15550001', '+15550002', '+15550003', '+15550004', '+15550005', '+15550006', '+15550007'];
/** The pace allows thousands at once; only the line cap counts. */
const fast = { frequency: 600_000, next_call_at: '2026-01-05T08:59:59.500Z' };

test(`power dialing places agent_dial_rate calls per line of max_aleg; progressive stays at max_aleg (${dbLabel})`, async () => {
  const power = await scenario(db, {
    numbers,
    campaign: { ...fast, max_aleg: 2, dial_method: DialMethod.Power, agent_dial_rate: '2.50' },
    script: () => ({ hold: true }),
  });
  assert.equal((await power.engine.runOnce()).started, 5, 'floor(2 × 2.5) calls at once');
  assert.equal((await power.engine.runOnce()).started, 0);
  await power.engine.stop();

  const progressive = await scenario(db, {
    numbers,
    campaign: { ...fast, max_aleg: 2, dial_method: DialMethod.Progressive, agent_dial_rate: '2.50' },
    script: () => ({ hold: true }),
  });
  assert.equal((await progressive.engine.runOnce()).started, 2, 'agent_dial_rate is power dialing’s only');
  await progressive.engine.stop();
});

const transferFlow = () =>
  flowOf([section({ order: 1, type: SectionType.CallTransfer, question: 'Transfer', phonenumber: '+15559999' }), section({ order: 2, question: 'After' })]);

/** Starts three calls that each reach a transfer lasting a minute; answers how many were transferred. */
async function transfersAtOnce(maxXfer: number): Promise<{ transferred: number; results: string[] }> {
  const s = await scenario(db, {
    numbers: numbers.slice(0, 3),
    campaign: { ...fast, max_xfer: maxXfer, survey_snapshot: transferFlow() },
    script: () => ({ transferSeconds: 60 }),
  });
  assert.equal((await s.engine.runOnce()).started, 3);
  const inTransfer = () => s.driver.calls.filter((c) => c.log.some((l) => l.startsWith('transfer:'))).length;
  const refused = () => s.driver.calls.filter((c) => c.log.includes('play:After')).length;
  // Every call has either started its transfer or been refused one and moved on.
  assert.ok(await eventually(async () => inTransfer() + refused() === 3), JSON.stringify(s.driver.calls.map((c) => c.log)));
  const transferred = inTransfer();
  await s.clock.advance(60_000);
  await s.engine.settle();
  const results = s.driver.calls.map((c) => c.log.join(' '));
  await s.engine.stop();
  return { transferred, results };
}

test(`max_xfer caps the campaign's transfers at once; the others go on with the survey (${dbLabel})`, async () => {
  const capped = await transfersAtOnce(1);
  assert.equal(capped.transferred, 1, JSON.stringify(capped.results));
  const free = await transfersAtOnce(0);
  assert.equal(free.transferred, 3, `max_xfer 0: no limit ${JSON.stringify(free.results)}`);
});
