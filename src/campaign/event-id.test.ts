import assert from 'node:assert/strict';
import test from 'node:test';
import fc from 'fast-check';
import { cursorOf, eventId } from './event-id.ts';

test('eventId: txid and row id in base 36, zeros in front, sortable as text, read back by cursorOf; for any safe integers', () => {
  const ids = fc.oneof(fc.constantFrom(0, 1, 35, 36, 2 ** 31 - 1, 2 ** 31, 2 ** 32, Number.MAX_SAFE_INTEGER), fc.nat(), fc.maxSafeNat());
  fc.assert(
    fc.property(ids, ids, (txid, id) => {
      const made = eventId({ txid, id });
      assert.equal(made, `evt_${txid.toString(36).padStart(11, '0')}${id.toString(36).padStart(12, '0')}`);
      assert.deepEqual(cursorOf(made), { txid, id });
    }),
  );
  fc.assert(
    fc.property(fc.maxSafeNat(), fc.maxSafeNat(), fc.maxSafeNat(), fc.maxSafeNat(), (t1, i1, t2, i2) => {
      const [a, b] = [eventId({ txid: t1, id: i1 }), eventId({ txid: t2, id: i2 })];
      assert.equal(a < b ? -1 : a > b ? 1 : 0, Math.sign(t1 - t2 || i1 - i2));
    }),
  );
});

test('cursorOf refuses what is not an event id', () => {
  for (const id of ['', 'evt_', 'evt_0000000001600000000000', 'evt_00000000016000000000007x', 'EVT_00000000016000000000007', 'evt_0000000001600000000000A']) assert.equal(cursorOf(id), undefined, id);
  assert.deepEqual(cursorOf('evt_00000000016000000000007'), { txid: 42, id: 7 });
});
