/**
 * The last active admin stays (issue 11 §2), even when two admins demote each other at the same
 * moment: on PostgreSQL the two requests run on two connections, and counting the admins before
 * the change let both through (no admin left). This file's database holds only its own users.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { users } from '../src/db/schema.ts';
import { makeUser } from './factories.ts';
import { call, dbLabel, testApp } from './helpers.ts';

const t = await testApp();

test(`two admins deactivating each other at once: one is refused, one admin stays active (${dbLabel})`, async () => {
  const a = await makeUser(t.database.db, { admin: true });
  const b = await makeUser(t.database.db, { admin: true });
  for (let round = 0; round < 5; round++) {
    const answers = await Promise.all([
      call(t.app, a.auth, 'PATCH', `/rest-api/accounts/${b.id}/`, { is_active: false }),
      call(t.app, b.auth, 'PATCH', `/rest-api/accounts/${a.id}/`, { is_active: false }),
    ]);
    const codes = answers.map((r) => r.statusCode).sort();
    // The refused one is refused by the rule (400), or, when the other's change committed before
    // its own request was authenticated, as a user deactivated already (401): both leave one admin.
    assert.ok(codes[0] === 202 && (codes[1] === 400 || codes[1] === 401), `round ${round}: ${codes} ${answers.map((r) => r.body).join(' | ')}`);
    const refused = answers.find((r) => r.statusCode !== 202)!;
    assert.match(JSON.stringify(refused.data), refused.statusCode === 400 ? /last active admin/ : /User inactive or deleted/);
    const active = await t.database.db.select().from(users).where(and(eq(users.is_admin, true), eq(users.is_active, true)));
    assert.equal(active.length, 1, `round ${round}: ${active.length} active admins`);
    // The one left activates the other again for the next round.
    const survivor = active[0].id === a.id ? a : b;
    const other = survivor === a ? b : a;
    const back = await call(t.app, survivor.auth, 'PATCH', `/rest-api/accounts/${other.id}/`, { is_active: true });
    assert.equal(back.statusCode, 202, back.body);
  }
});
