import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ManualClock, systemClock } from '../../clock.ts';
import { Q850, type Call, type OriginateRequest } from './driver.ts';
import { createDriver, validateDriverSettings } from './index.ts';
import { SimulatorDriver, simulatorSettings } from './simulator.ts';

const dataDir = '/tmp/campaign-dialer-test';

function request(callId: string, overrides: Partial<OriginateRequest> = {}): OriginateRequest {
  return {
    callId,
    to: '15550001111',
    callerId: '15559990000',
    callerName: 'Test',
    gateway: { id: 1, name: 'sim', gateways: '', originate_dial_string: '', settings: {} },
    timeoutSeconds: 45,
    maxDurationSeconds: 1800,
    amd: true,
    variables: {},
    ...overrides,
  };
}

/** A driver on a manual clock, with no failures unless asked, and whole seconds of ring/talk. */
function manual(settings: Record<string, unknown>) {
  const clock = new ManualClock();
  const driver = new SimulatorDriver({ answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0, ...settings }, { clock, dataDir });
  return { clock, driver };
}

/** Places `n` calls with no ring or talk time on the real clock; returns their hangup causes. */
async function causesOf(settings: Record<string, unknown>, n: number, prefix = 'c'): Promise<number[]> {
  const driver = new SimulatorDriver({ ring_seconds: [0, 0], talk_seconds: [0, 0], ...settings }, { clock: systemClock, dataDir });
  const calls: Call[] = [];
  for (let i = 0; i < n; i++) calls.push(driver.originate(request(`${prefix}${i}`, { timeoutSeconds: 0 })));
  const hangups = await Promise.all(calls.map((c) => c.ended));
  return hangups.map((h) => h.cause);
}

describe('simulator settings', () => {
  test('missing settings take the defaults', () => {
    const checked = simulatorSettings({});
    assert.ok(checked.ok);
    assert.deepEqual(checked.value, {
      answer_rate: 0.7, busy_rate: 0.1, noanswer_rate: 0.1, machine_rate: 0.1,
      ring_seconds: [2, 8], talk_seconds: [5, 30], dtmf: 'random', seed: 1, time_scale: 1,
    });
  });

  test('every invalid setting is reported at once', () => {
    const checked = simulatorSettings({ answer_rate: 2, ring_seconds: [5, 1], dtmf: 'abc', seed: 1.5, time_scale: 0, colour: 'red' });
    assert.ok(!checked.ok);
    assert.equal(checked.errors.length, 6, checked.errors.join('\n'));
    assert.ok(checked.errors.some((e) => e.startsWith('colour:')));
  });

  test('rates adding up to more than 1 are refused', () => {
    assert.deepEqual(validateDriverSettings('simulator', { answer_rate: 0.8, busy_rate: 0.3 }), [
      'answer_rate + busy_rate + noanswer_rate must not exceed 1.',
    ]);
  });

  test('rates left at their defaults shrink to make room for the given ones', () => {
    const checked = simulatorSettings({ answer_rate: 0.9 });
    assert.ok(checked.ok);
    assert.equal(checked.value.busy_rate.toFixed(6), '0.050000');
    assert.equal(checked.value.noanswer_rate.toFixed(6), '0.050000');
  });

  test('an unknown driver is an error; the registry builds the simulator', () => {
    assert.equal(validateDriverSettings('carrier-pigeon', {}).length, 1);
    assert.throws(() => createDriver({ driver: 'carrier-pigeon', settings: {} }, { clock: systemClock, dataDir }), /unknown telephony driver/);
    assert.equal(createDriver({ driver: 'simulator', settings: {} }, { clock: systemClock, dataDir }).name, 'simulator');
  });
});

describe('simulator calls', () => {
  test('outcomes follow the configured rates over many calls', async () => {
    const n = 4000;
    const causes = await causesOf({ answer_rate: 0.5, busy_rate: 0.2, noanswer_rate: 0.1, seed: 7 }, n);
    const share = (codes: number[]) => causes.filter((c) => codes.includes(c)).length / n;
    const near = (actual: number, expected: number) => assert.ok(Math.abs(actual - expected) < 0.03, `${actual} vs ${expected}`);
    near(share([Q850.NormalClearing]), 0.5);
    near(share([Q850.UserBusy]), 0.2);
    near(share([Q850.NoAnswer]), 0.1);
    near(share([Q850.Congestion, Q850.CallRejected, Q850.NormalTemporaryFailure]), 0.2);
    for (const failure of [Q850.Congestion, Q850.CallRejected, Q850.NormalTemporaryFailure]) assert.ok(causes.includes(failure));
  });

  test('machines are the configured share of answered calls, reported only when AMD is asked', async () => {
    const driver = new SimulatorDriver({ answer_rate: 1, busy_rate: 0, noanswer_rate: 0, machine_rate: 0.3, ring_seconds: [0, 0], talk_seconds: [0, 0] }, { clock: systemClock, dataDir });
    const outcomes = await Promise.all(Array.from({ length: 2000 }, (_, i) => driver.originate(request(`m${i}`)).answered));
    const machines = outcomes.filter((o) => o.answered && o.amd === 'machine').length / outcomes.length;
    assert.ok(Math.abs(machines - 0.3) < 0.03, String(machines));
    const plain = await driver.originate(request('m0', { amd: false })).answered;
    assert.deepEqual(plain, { answered: true, amd: 'none' });
  });

  test('the same seed gives the same calls whatever their order; another seed differs', async () => {
    const settings = { seed: 42 };
    const forward = await causesOf(settings, 200);
    const driver = new SimulatorDriver({ ring_seconds: [0, 0], talk_seconds: [0, 0], ...settings }, { clock: systemClock, dataDir });
    const backward: number[] = [];
    for (let i = 199; i >= 0; i--) backward[i] = (await driver.originate(request(`c${i}`, { timeoutSeconds: 0 })).ended).cause;
    assert.deepEqual(backward, forward);
    assert.notDeepEqual(await causesOf({ seed: 43 }, 200), forward);
  });

  test('the manual clock drives the ring time; duration is ring plus talk, billsec the talk', async () => {
    const { clock, driver } = manual({ ring_seconds: [3, 3], talk_seconds: [20, 20] });
    const c = driver.originate(request('ring'));
    let answered = false;
    void c.answered.then(() => (answered = true));
    await clock.advance(2999);
    assert.equal(answered, false);
    await clock.advance(1);
    assert.deepEqual(await c.answered, { answered: true, amd: 'person' });
    await clock.advance(20_000);
    const hangup = await c.ended;
    assert.equal(hangup.causeName, 'NORMAL_CLEARING');
    assert.equal(hangup.duration, 23);
    assert.equal(hangup.billsec, 20);
    assert.equal(hangup.answeredAt!.getTime() - hangup.startedAt.getTime(), 3000);
    assert.equal(driver.inProgress, 0);
  });

  test('a ring longer than the timeout ends NO_ANSWER (19) at the timeout', async () => {
    const { clock, driver } = manual({ ring_seconds: [30, 30] });
    const c = driver.originate(request('late', { timeoutSeconds: 5 }));
    await clock.advance(5000);
    const outcome = await c.answered;
    assert.ok(!outcome.answered);
    assert.equal(outcome.hangup.cause, Q850.NoAnswer);
    assert.equal(outcome.hangup.duration, 5);
    assert.equal(outcome.hangup.billsec, 0);
  });

  test('busy calls end USER_BUSY (17) quickly', async () => {
    const { clock, driver } = manual({ answer_rate: 0, busy_rate: 1, ring_seconds: [8, 8] });
    const c = driver.originate(request('busy'));
    await clock.advance(1000);
    const hangup = await c.ended;
    assert.equal(hangup.cause, Q850.UserBusy);
    assert.equal(hangup.duration, 1);
  });

  test('callmaxduration cuts an answered call with ALLOTTED_TIMEOUT, still billed', async () => {
    const { clock, driver } = manual({ ring_seconds: [2, 2], talk_seconds: [60, 60] });
    const c = driver.originate(request('long', { maxDurationSeconds: 10 }));
    await clock.advance(12_000);
    const hangup = await c.ended;
    assert.equal(hangup.cause, Q850.AllottedTimeout);
    assert.equal(hangup.causeName, 'ALLOTTED_TIMEOUT');
    assert.equal(hangup.billsec, 10);
    assert.equal(hangup.duration, 12);
  });

  test("random dtmf presses one of the IVR's expected keys", async () => {
    const { clock, driver } = manual({ ring_seconds: [0, 0], talk_seconds: [600, 600] });
    const pressed = new Set<string | null>();
    for (let i = 0; i < 30; i++) {
      const c = driver.originate(request(`k${i}`, { expectedKeys: ['1', '2', '3'] }));
      await clock.advance(0);
      const digits = c.collect({ maxDigits: 1, timeoutSeconds: 5 });
      await clock.advance(1000);
      pressed.add(await digits);
    }
    assert.deepEqual([...pressed].sort(), ['1', '2', '3']);
  });

  test('fixed dtmf is consumed in order, # ending an entry, then nothing is pressed', async () => {
    const { clock, driver } = manual({ ring_seconds: [0, 0], talk_seconds: [600, 600], dtmf: '1#4567#' });
    const c = driver.originate(request('fixed'));
    await clock.advance(0);
    const got: (string | null)[] = [];
    for (const maxDigits of [1, 10, 1]) {
      const digits = c.collect({ maxDigits, timeoutSeconds: 5 });
      await clock.advance(5000);
      got.push(await digits);
    }
    assert.deepEqual(got, ['1', '4567', '']);
  });

  test('when the caller hangs up, pending commands resolve and collect gives null', async () => {
    const { clock, driver } = manual({ ring_seconds: [0, 0], talk_seconds: [4, 4] });
    const c = driver.originate(request('gone'));
    await clock.advance(0);
    const playing = c.play({ text: 'x'.repeat(500) });
    await clock.advance(4000);
    await playing;
    assert.equal(await c.collect({ maxDigits: 1, timeoutSeconds: 5 }), null);
    assert.equal((await c.ended).cause, Q850.NormalClearing);
  });

  test('hangup by the IVR ends the call NORMAL_CLEARING with the time spent', async () => {
    const { clock, driver } = manual({ ring_seconds: [1, 1], talk_seconds: [600, 600] });
    const c = driver.originate(request('ivr'));
    await clock.advance(1000);
    await clock.advance(7000);
    await c.hangup();
    const hangup = await c.ended;
    assert.equal(hangup.cause, Q850.NormalClearing);
    assert.deepEqual([hangup.duration, hangup.billsec], [8, 7]);
  });

  test('record, listen and bridge take simulated time; bridge lasts until the caller leaves', async () => {
    const { clock, driver } = manual({ ring_seconds: [0, 0], talk_seconds: [60, 60] });
    const c = driver.originate(request('voice', { expectedKeys: ['yes'] }));
    await clock.advance(0);
    const recording = c.record({ maxSeconds: 3 });
    await clock.advance(3000);
    assert.deepEqual(await recording, { file: '', seconds: 3 });
    const words = c.listen({ timeoutSeconds: 10 });
    await clock.advance(2000);
    assert.equal(await words, 'yes');
    let bridged = false;
    void c.bridge({ conference: 'room' }).then(() => (bridged = true));
    await clock.advance(54_000);
    assert.equal(bridged, false);
    await clock.advance(1000);
    assert.equal(bridged, true);
    assert.equal((await c.ended).billsec, 60);
  });

  test('transfer makes a B-leg with its own id that ends when it hangs up', async () => {
    const { clock, driver } = manual({ ring_seconds: [2, 2], talk_seconds: [30, 30] });
    const c = driver.originate(request('a'));
    await clock.advance(2000);
    const transfer = c.transfer({ number: '15551234567', callerId: '15559990000', timeoutSeconds: 20 });
    await clock.advance(30_000); // the A-leg's caller leaves at 32 s, before the B-leg's: both end
    const { callId, hangup } = await transfer;
    assert.equal(callId, 'a-b1');
    assert.equal(hangup.cause, Q850.NormalClearing);
    assert.equal(hangup.billsec, 28); // answered at 4 s
  });

  test('close ends every call in progress', async () => {
    const { clock, driver } = manual({ ring_seconds: [5, 5], talk_seconds: [600, 600] });
    const up = driver.originate(request('up', { timeoutSeconds: 60 }));
    const ringing = driver.originate(request('ringing', { timeoutSeconds: 60 }));
    await clock.advance(5000);
    const late = driver.originate(request('late'));
    void ringing;
    await driver.close();
    assert.equal((await up.ended).cause, Q850.NormalClearing);
    assert.equal((await late.ended).cause, Q850.OriginatorCancel);
    assert.equal(driver.inProgress, 0);
  });

  test('calls without ring or talk time complete within a fraction of a millisecond each', async () => {
    const n = 5000;
    const started = performance.now();
    await causesOf({ seed: 3 }, n, 'fast');
    const perCall = (performance.now() - started) / n;
    assert.ok(perCall < 0.5, `${perCall} ms per call`); // loose: the test machine is shared
  });
});
