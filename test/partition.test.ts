/**
 * An engine cut off from PostgreSQL while the rest is not: a network partition (PostgreSQL only,
 * sipp as the carrier). The engine reaches the database through test/pg-cut-proxy.ts
 * partitionProxy, which holds every byte both ways until healed: a network fault in front of the
 * real database, not a fake one. Its fence (src/engine/engine.ts fenceTick) must hang up its
 * calls before any other engine may take it for dead and call those people again; with no other
 * engine, the calls it hung up are written once the database is back and retried.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { type SQL, sql } from 'drizzle-orm';
import { openDatabase, queryRows } from '../src/db/database.ts';
import { type Api, apiClient, type Env, createUsers, freshEnv, type Server, simulatorCampaign, startServe } from './cli-process.ts';
import { basic, onPostgres, until } from './helpers.ts';
import { partitionProxy } from './pg-cut-proxy.ts';
import { invitedCallIds, type SipMessage, startTracedSipp } from './sip/peers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-partition-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** Where in sipp's trace it received `method` with `callId` (-1: never). */
const receivedAt = (messages: SipMessage[], method: string, callId: string) =>
  messages.findIndex((m) => m.direction === 'received' && m.start.startsWith(`${method} `) && /^(?:Call-ID|i):\s*(.*?)\s*$/im.exec(m.text)?.[1] === callId);

const answeredBy = (messages: SipMessage[]) => messages.filter((m) => m.direction === 'received' && m.start.startsWith('ACK ')).length;

/**
 * An API process, and engine A behind the partitioning proxy (ENGINE_STALE_SECONDS=8: it fences
 * itself at 6 s); alice's campaign calling `numbers` through sipp, which answers each and waits
 * for our BYE. The survey waits 15 s for digits, so the calls are up through the partition.
 * `use` runs once every call is answered; the processes, the proxy and sipp are stopped after.
 */
async function partitioned(
  name: string,
  numbers: string[],
  use: (run: {
    a: Server;
    proxy: Awaited<ReturnType<typeof partitionProxy>>;
    env: Env;
    procs: Server[];
    messages: () => SipMessage[];
    output: () => string;
    alice: Api;
    campaignId: number;
    count: (query: SQL) => Promise<number>;
    rows: <T>(query: SQL) => Promise<T[]>;
  }) => Promise<void>,
): Promise<void> {
  const { sipp, messages, timeline } = await startTracedSipp('carrier.xml', root, path.join(root, `${name}-sipp.log`));
  const env: Env = { ...(await freshEnv(path.join(root, name))), ENGINE_STALE_SECONDS: '8' };
  const url = new URL(env.DATABASE_URL as string);
  const proxy = await partitionProxy(Number(url.port));
  url.port = String(proxy.port);
  await createUsers(env);
  const procs = [await startServe(env, 'api')];
  const database = await openDatabase({ url: env.DATABASE_URL as string, poolSize: 2 });
  try {
    const a = await startServe({ ...env, DATABASE_URL: url.toString() }, 'engine');
    procs.push(a);
    const output = () => `${procs.map((p) => p.output()).join('\n').slice(-4000)}\n${timeline().slice(-3000)}`;
    const rows = <T>(query: SQL) => queryRows<T>(database.db, query);
    const count = async (query: SQL) => (await rows<{ n: number }>(query))[0].n;
    const alice = apiClient(procs[0].base, basic('alice', 'alice-pw'));
    const campaignId = await simulatorCampaign(apiClient(procs[0].base, basic('boss', 'boss-pw')), alice, {
      name,
      contacts: numbers.length,
      numbers,
      driver: 'sip',
      gateway: { proxy: `127.0.0.1:${sipp.port}`, bind_address: '127.0.0.1', bind_port: 0 },
      sections: [{ type: 4, question: 'Hold on', script: 'Your code, please', number_digits: 4, timeout: 15 }],
      campaign: { frequency: 600, maxretry: 1, intervalretry: 1, calltimeout: 10, end_when_done: true },
    });
    await until(output, 30_000, async () => answeredBy(messages()) === numbers.length);
    await use({ a, proxy, env, procs, messages, output, alice, campaignId, count, rows });
  } finally {
    proxy.heal(); // a failure before the heal: A's stop writes what it holds, then exits
    await database.close();
    for (const p of procs) p.child.kill('SIGTERM');
    await Promise.all(procs.map((p) => p.exited));
    await proxy.close();
    await sipp.stop();
  }
}

interface Call {
  subscriber_id: number;
  call_uuid: string;
  hangup_cause: string;
}

if (onPostgres) {
  test('an engine cut off from PostgreSQL alone hangs up its calls before another takes it for dead: nobody is on two of its calls at once (PostgreSQL, sipp)', { timeout: 240_000 }, async () => {
    await partitioned('partition', ['+12035551000', '+12035552000', '+12035553000'], async ({ a, proxy, env, procs, messages, output, alice, campaignId, count, rows }) => {
      // Engine B reaches the database directly.
      procs.push(await startServe(env, 'engine'));
      await until(output, 30_000, async () => (await count(sql`select count(*)::int as n from engine_heartbeats`)) === 2);
      proxy.partition();
      // B takes A for dead (8 s silent, at its next recovery: within 10 s more), closes its calls
      // and retries them a second later: three more INVITEs.
      await until(output, 60_000, async () => invitedCallIds(messages()).size === 6);
      proxy.heal();
      await until(output, 120_000, async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4);

      const calls = await rows<Call>(sql`select subscriber_id, call_uuid, hangup_cause from callrequests where campaign_id = ${campaignId} order by subscriber_id, id`);
      assert.equal(calls.length, 6, `each subscriber called twice: ${JSON.stringify(calls)}`);
      const trace = messages();
      for (let i = 0; i < calls.length; i += 2) {
        const [first, retry] = [calls[i], calls[i + 1]];
        assert.equal(first.subscriber_id, retry.subscriber_id);
        assert.equal(first.hangup_cause, 'ENGINE_RESTART', 'A\'s call, closed by B');
        const bye = receivedAt(trace, 'BYE', first.call_uuid);
        assert.ok(bye >= 0 && bye < receivedAt(trace, 'INVITE', retry.call_uuid), `A hung up subscriber ${first.subscriber_id}'s call before B called again:\n${output()}`);
      }
      assert.match(a.output(), /no heartbeat for \d+ s: hung up its 3 call\(s\) in flight, before another engine may take it for dead \(at 8 s\)/);
      assert.equal(await count(sql`select count(*)::int as n from subscribers where campaign_id = ${campaignId} and status not in (4, 5, 8)`), 0, 'every subscriber final');
      assert.equal(await count(sql`select count(*)::int as n from cdrs where campaign_id = ${campaignId} and leg_type = 1`), 6, 'one A-leg CDR a call: A\'s late outcomes not written');
    });
  });

  test('an engine alone cut off from PostgreSQL hangs up its calls; back, it writes them ENGINE_FENCED and calls those people again (PostgreSQL, sipp)', { timeout: 240_000 }, async () => {
    await partitioned('fenced', ['+12035551000', '+12035552000'], async ({ a, proxy, messages, output, alice, campaignId, rows }) => {
      proxy.partition();
      await until(output, 30_000, async () => /no heartbeat for \d+ s: hung up its 2 call\(s\) in flight/.test(a.output()));
      await until(output, 10_000, async () => messages().filter((m) => m.direction === 'received' && m.start.startsWith('BYE ')).length === 2);
      assert.equal(invitedCallIds(messages()).size, 2, 'nobody called again while the engine was cut off');
      proxy.heal();
      await until(output, 120_000, async () => (await alice('GET', `/rest-api/campaigns/${campaignId}/`)).status === 4);

      const calls = await rows<Call & { disposition: string; billsec: number }>(
        sql`select r.subscriber_id, r.call_uuid, r.hangup_cause, c.disposition, c.billsec from callrequests r
            join cdrs c on c.callrequest_id = r.id and c.leg_type = 1 where r.campaign_id = ${campaignId} order by r.subscriber_id, r.id`,
      );
      assert.equal(calls.length, 4, `each subscriber called twice, one CDR a call: ${JSON.stringify(calls)}`);
      const trace = messages();
      for (let i = 0; i < calls.length; i += 2) {
        const [first, retry] = [calls[i], calls[i + 1]];
        assert.equal(first.subscriber_id, retry.subscriber_id);
        assert.deepEqual([first.hangup_cause, first.disposition], ['ENGINE_FENCED', 'ANSWER'], 'the call the fence cut: answered, and says why it ended');
        assert.ok(first.billsec > 0, 'billed as the call it was');
        assert.equal(retry.hangup_cause, 'NORMAL_CLEARING');
        const bye = receivedAt(trace, 'BYE', first.call_uuid);
        assert.ok(bye >= 0 && bye < receivedAt(trace, 'INVITE', retry.call_uuid), `subscriber ${first.subscriber_id} called again after the fence's BYE:\n${output()}`);
      }
      const subscribers = (await alice('GET', `/rest-api/subscriber-list/?campaign_id=${campaignId}`)) as { status: number; count_attempt: number }[];
      assert.deepEqual(subscribers.map((s) => [s.status, s.count_attempt]), [[5, 2], [5, 2]], 'retried as recovery would have, then SENT');
    });
  });
}
