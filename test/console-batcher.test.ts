/**
 * The console's event batching (console/src/api/batcher.ts): a burst of live events costs one
 * refetch per resource per round, a fetch in flight is never cancelled by the next event, and
 * the last event is always followed by a fetch that started after it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InvalidationBatcher, type Timers } from '../console/src/api/batcher.ts';

/** Timers run by hand: `tick()` fires what is due. */
function fakeTimers() {
  let pending: (() => void) | undefined;
  const timers: Timers = {
    setTimeout: (fn) => {
      assert.equal(pending, undefined, 'one round scheduled at a time');
      pending = fn;
      return 1;
    },
    clearTimeout: () => (pending = undefined),
  };
  const tick = () => {
    const fn = pending;
    pending = undefined;
    fn?.();
  };
  return { timers, tick, scheduled: () => pending !== undefined };
}

test('10,000 events in one round invalidate each resource they name once, and hand the round its events once', () => {
  const { timers, tick } = fakeTimers();
  const invalidated: string[] = [];
  const rounds: number[] = [];
  const batcher = new InvalidationBatcher<number>({ isFetching: () => false, invalidate: (r) => invalidated.push(r) }, 750, (e) => rounds.push(e.length), timers);
  for (let i = 0; i < 10_000; i++) batcher.add(i, ['campaigns', 'cdr']);
  assert.deepEqual(invalidated, [], 'nothing before the round');
  tick();
  assert.deepEqual(invalidated.sort(), ['campaigns', 'cdr']);
  assert.deepEqual(rounds, [10_000]);
});

test('a resource still fetching waits for the next round (its fetch is not cancelled), then is invalidated once', () => {
  const { timers, tick, scheduled } = fakeTimers();
  const fetching = new Set(['campaigns']);
  const invalidated: string[] = [];
  const batcher = new InvalidationBatcher<number>({ isFetching: (r) => fetching.has(r), invalidate: (r) => invalidated.push(r) }, 750, undefined, timers);
  batcher.add(1, ['campaigns', 'users']);
  tick();
  assert.deepEqual(invalidated, ['users']);
  assert.ok(scheduled(), 'another round for the resource that was fetching');
  tick();
  assert.deepEqual(invalidated, ['users'], 'still fetching: still waiting');
  fetching.clear();
  tick();
  assert.deepEqual(invalidated, ['users', 'campaigns']);
  assert.ok(!scheduled(), 'nothing left to do');
});

test('stop() drops the pending round', () => {
  const { timers, tick } = fakeTimers();
  const invalidated: string[] = [];
  const batcher = new InvalidationBatcher<number>({ isFetching: () => false, invalidate: (r) => invalidated.push(r) }, 750, undefined, timers);
  batcher.add(1, ['campaigns']);
  batcher.stop();
  tick();
  assert.deepEqual(invalidated, []);
});
