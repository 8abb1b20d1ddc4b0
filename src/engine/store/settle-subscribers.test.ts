/**
 * settleSubscribers' plan on a database whose statistics were taken while nothing was in
 * process (autovacuum's ANALYZE at a quiet moment): the batch is read once, each subscriber found
 * by its key. Planned from those statistics as plain joins, the statement began from the
 * subscribers in process and read the whole batch again for each of them, and the engine ran at
 * a quarter of its pace (bench:events).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/database.ts';
import { SubscriberStatus } from '../../db/schema.ts';
import { dbLabel, testDatabase } from '../../../test/helpers.ts';
import { makeCampaign, makeUser } from '../../../test/factories.ts';
import { type SettledSubscriber, settleSubscribers, settleSubscribersSql } from './settle-subscribers.ts';

const database = await testDatabase();
const db = database.db;

const { InProcess, Sent } = SubscriberStatus;

interface PlanNode {
  'Node Type': string;
  'Actual Loops': number;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

test(`a batch of outcomes is read once, each subscriber found by its key, after an ANALYZE that saw none in process (${dbLabel})`, async () => {
  const user = await makeUser(db);
  const campaigns = await Promise.all(Array.from({ length: 8 }, () => makeCampaign(db, { user_id: user.id })));
  // 40,000 subscribers over eight campaigns, none in process, analyzed.
  for (const c of campaigns) {
    await db.execute(sql`insert into subscribers (campaign_id, duplicate_contact, phone_key, status)
      select ${c.id}, '+1555' || lpad(g::text, 7, '0'), '1555' || lpad(g::text, 7, '0'), ${Sent}
      from generate_series(1, 5000) g`);
  }
  await db.execute(sql`analyze subscribers`);
  await db.execute(sql`analyze campaigns`);
  // Then 500 of the last campaign's are called.
  const called = await queryRows<{ id: number }>(
    db,
    sql`update subscribers set status = ${InProcess}
        where id in (select id from subscribers where campaign_id = ${campaigns[7].id} order by id limit 500) returning id`,
  );
  const outcomes: SettledSubscriber[] = called.map(({ id }) => ({
    id: Number(id),
    answered: true,
    done: Sent,
    ended: '2026-11-28T10:00:00.000Z',
    cause_name: 'NORMAL_CLEARING',
    rule: null,
    disposition: 'ANSWER',
    callback: null,
  }));

  const rollback = new Error('rollback');
  await db
    .transaction(async (tx) => {
      const [row] = await queryRows<{ 'QUERY PLAN': [{ Plan: PlanNode }] | string }>(tx, sql`explain (analyze, format json) ${settleSubscribersSql(outcomes)}`);
      const plan = typeof row['QUERY PLAN'] === 'string' ? (JSON.parse(row['QUERY PLAN']) as [{ Plan: PlanNode }]) : row['QUERY PLAN'];
      const nodes = nodesOf(plan[0].Plan);
      const shown = JSON.stringify(plan[0].Plan);
      const batchReads = nodes.filter((n) => n['Node Type'] === 'Function Scan');
      assert.deepEqual(batchReads.map((n) => n['Actual Loops']), [1], `the batch (jsonb_to_recordset) read once: ${shown}`);
      // Every read of subscribers by its key, from the batch: none by campaign and status
      // (subscribers_due_idx), the way into the plan that read the batch once per subscriber.
      const reads = nodes.filter((n) => n['Relation Name'] === 'subscribers' && n['Node Type'] !== 'ModifyTable');
      assert.ok(reads.length > 0, shown);
      assert.deepEqual(new Set(reads.map((n) => n['Index Name'])), new Set(['subscribers_pkey']), `subscribers read by key only: ${shown}`);
      throw rollback;
    })
    .catch((err) => {
      if (err !== rollback) throw err;
    });

  await db.transaction((tx) => settleSubscribers(tx, outcomes));
  const [after] = await queryRows<{ sent: number; finals: number }>(
    db,
    sql`select (select count(*)::int from subscribers where campaign_id = ${campaigns[7].id} and status = ${Sent}) as sent,
               (select count(*)::int from events where type = 'subscriber.final' and campaign_id = ${campaigns[7].id}) as finals`,
  );
  assert.deepEqual(after, { sent: 5000, finals: 500 }, 'every outcome settled, each with its subscriber.final event');
});
