/**
 * One rule both campaign kinds keep (voice at /rest-api/campaigns/, SMS at
 * /rest-api/sms-campaigns/), checked the same way for each: dates outside 1970–9999 and an
 * expiration before the start are a 400, on create and on update, and a refused update changes
 * nothing.
 */
import assert from 'node:assert/strict';
import type { call } from './helpers.ts';

type Answer = Awaited<ReturnType<typeof call>>;

export interface CampaignKind {
  /** POSTs a campaign of this kind with these fields over a valid body. */
  create(body: Record<string, unknown>): Promise<Answer>;
  /** The same, asserting it was created. */
  created(body: Record<string, unknown>): Promise<{ id: number }>;
  patch(id: number, body: unknown): Promise<Answer>;
  read(id: number): Promise<Answer>;
}

export async function assertDatesChecked(kind: CampaignKind): Promise<void> {
  const range = /between 1970-01-01 00:00:00 and 9999-12-31 23:59:59 UTC/;
  for (const [field, value] of [['startingdate', '0001-01-01 00:00:00'], ['startingdate', '1969-12-31T23:59:59Z'], ['expirationdate', '0099-06-01']] as const) {
    const res = await kind.create({ [field]: value });
    assert.equal(res.statusCode, 400, `${field} ${value}: ${res.body}`);
    assert.match(res.data[field][0], range, res.body);
  }
  const reversed = await kind.create({ startingdate: '2030-02-01 00:00:00', expirationdate: '2030-01-01 00:00:00' });
  assert.equal(reversed.statusCode, 400, reversed.body);
  assert.deepEqual(Object.keys(reversed.data), ['expirationdate']);
  const c = await kind.created({ startingdate: '2030-01-01 00:00:00', expirationdate: '2030-02-01 00:00:00' });
  for (const body of [{ startingdate: '2030-03-01 00:00:00' }, { expirationdate: '2029-12-31 00:00:00' }]) {
    const res = await kind.patch(c.id, body);
    assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`);
    assert.ok(res.data.expirationdate, res.body);
  }
  const read = await kind.read(c.id);
  assert.equal(read.data.startingdate, '2030-01-01T00:00:00.000000Z', 'a refused update changed nothing');
  assert.equal((await kind.patch(c.id, { expirationdate: '2030-01-15 00:00:00' })).statusCode, 202);
  assert.equal((await kind.patch(c.id, { startingdate: '1970-01-01 00:00:00', expirationdate: '9999-12-31 23:59:59' })).statusCode, 202);
}
