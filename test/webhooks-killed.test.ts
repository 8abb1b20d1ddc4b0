/**
 * Webhooks survive a crash (issue 14 §5): events committed while the receiver is down, the
 * server killed with SIGKILL before it could deliver them, the receiver up again, the server
 * started again: every event arrives. And the lease a process holds on a webhook while it sends:
 * a process killed mid-delivery holds it seconds, not a minute; one whose sending outlasts a lease
 * keeps it, so a second process does not send the same events beside it. Real server processes,
 * not the app in this process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { LEASE_SECONDS } from '../src/webhooks/dispatcher.ts';
import { apiClient, type Env, freshEnv, logIds, request, simulatorCampaign, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, eventually, freePort, freshPostgresDatabase, onPostgres } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-webhooks-killed-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const admin = basic('admin', 'admin-pw');

test(`events committed before a kill -9 are delivered after the restart (${dbLabel})`, { timeout: 240_000 }, async () => {
  const env: Record<string, string> = { DATA_DIR: path.join(root, 'data'), DIALER_ADMIN_PASSWORD: 'admin-pw', WEBHOOK_ALLOW_PRIVATE: 'true' };
  if (onPostgres) {
    const { url, drop } = await freshPostgresDatabase();
    after(drop);
    env.DATABASE_URL = url;
  }
  const port = await freePort();
  const first = await startServe(env);
  const hook = await request(first, 'POST', '/rest-api/webhook/', admin, { url: `http://127.0.0.1:${port}/hook`, events: ['campaign.ended'] });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const gateway = await request(first, 'POST', '/rest-api/gateway/', admin, { name: 'gw', gateways: 'sofia/gateway/a/' });
  assert.equal(gateway.status, 201, JSON.stringify(gateway.body));
  const survey = await request(first, 'POST', '/rest-api/survey-template/', admin, { name: 'survey' });
  assert.equal(survey.status, 201, JSON.stringify(survey.body));
  const ended: number[] = [];
  for (let i = 0; i < 3; i++) {
    const created = await request(first, 'POST', '/rest-api/campaigns/', admin, { name: `c${i}`, aleg_gateway: gateway.body.url, object_id: survey.body.url });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const end = await request(first, 'PATCH', `/rest-api/campaigns/${created.body.id}/`, admin, { status: 4 });
    assert.equal(end.status, 202, JSON.stringify(end.body));
    ended.push(created.body.id);
  }
  // The receiver is down: the deliveries fail and wait. Then the server dies without a word.
  first.child.kill('SIGKILL');
  await first.exited;

  const got: { id: string; data: { id: number } }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      got.push(JSON.parse(body));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(port, '127.0.0.1', resolve));
  after(() => receiver.close());

  const second = await startServe(env);
  try {
    // A delivery under way at the kill waits for its lease to run out (LEASE_SECONDS).
    assert.ok(await eventually(async () => ended.every((id) => got.some((e) => e.data.id === id)), 150_000), `received ${JSON.stringify(got)}`);
    const unique = new Set(got.map((e) => e.id));
    assert.equal(unique.size, 3, 'three events, each with its own id');
  } finally {
    await stop(second);
  }
});

/** A receiver on loopback that records each request's Dialer-Event-Id and when it came. */
async function startReceiver(answer: (n: number, res: http.ServerResponse) => void) {
  const got: { id: string; at: number }[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      got.push({ id: String(req.headers['dialer-event-id']), at: Date.now() });
      answer(got.length, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

test(`a server killed while its receiver holds a delivery: another process sends it again within the lease (${dbLabel})`, { timeout: 240_000 }, async () => {
  const env: Env = { ...(await freshEnv(path.join(root, 'lease-data'))), WEBHOOK_ALLOW_PRIVATE: 'true' };
  // The first request is held without an answer (the process is killed meanwhile); later ones are taken.
  const receiver = await startReceiver((n, res) => {
    if (n > 1) res.writeHead(200).end();
  });
  const first = await startServe(env);
  const api = apiClient(first.base, admin);
  await api('POST', '/rest-api/webhook/', { url: receiver.url, events: ['campaign.ended'] });
  const gateway = await api('POST', '/rest-api/gateway/', { name: 'gw', gateways: 'sofia/gateway/a/' });
  const survey = await api('POST', '/rest-api/survey-template/', { name: 'survey' });
  const campaign = await api('POST', '/rest-api/campaigns/', { name: 'c', aleg_gateway: gateway.url, object_id: survey.url });
  await api('PATCH', `/rest-api/campaigns/${campaign.id}/`, { status: 4 });
  assert.ok(await eventually(async () => receiver.got.length === 1, 30_000), 'the event was sent once');
  first.child.kill('SIGKILL');
  await first.exited;
  const killedAt = Date.now();

  const second = await startServe(env);
  try {
    assert.ok(await eventually(async () => receiver.got.length >= 2, 120_000, 100), 'the event was sent again');
    const [held, again] = receiver.got;
    assert.equal(again.id, held.id, 'the same event, by its id');
    // The lease ran out at most 15 s after the kill (the README's lease: renewed while the request
    // was held, never after); the margin is for the restart and the next round. A lease of a
    // minute, as it was, fails this.
    const waited = again.at - killedAt;
    assert.ok(waited < 15_000 + 20_000, `sent again ${waited} ms after the kill`);
  } finally {
    await stop(second);
  }
});

if (onPostgres) {
  test('a webhook whose sending outlasts its lease keeps it: two server processes send each event once, in order (PostgreSQL)', { timeout: 300_000 }, async () => {
    const env: Env = { ...(await freshEnv(path.join(root, 'pair-data'))), WEBHOOK_ALLOW_PRIVATE: 'true' };
    // Slow answers: the ~300 events of the campaign take the receiver about twice a lease.
    const answerMs = Math.ceil((2 * LEASE_SECONDS * 1000) / 300);
    const receiver = await startReceiver((_n, res) => setTimeout(() => res.writeHead(200).end(), answerMs));
    const servers = [await startServe(env, 'all'), await startServe(env, 'api')];
    try {
      const api = apiClient(servers[0].base, admin);
      // Created inactive: the campaign's events wait in the log, then go in one long run of deliveries.
      const hook = await api('POST', '/rest-api/webhook/', { url: receiver.url, ordered: true, batch_size: 1, active: false });
      const id = await simulatorCampaign(api, api, {
        name: 'lease',
        contacts: 150,
        gateway: { answer_rate: 1, ring_seconds: [0, 0], talk_seconds: [0, 0] },
        campaign: { frequency: 6000, maxretry: 0, end_when_done: true },
      });
      assert.ok(await eventually(async () => (await api('GET', `/rest-api/campaigns/${id}/`)).status === 4, 120_000, 250), 'the campaign ended');
      const log = await logIds(api);
      assert.ok(log.length >= 300, `${log.length} events in the log`);
      const started = Date.now();
      await api('PATCH', `/rest-api/webhook/${hook.id}/`, { active: true });
      const done = await eventually(async () => new Set(receiver.got.map((r) => r.id)).size >= log.length, 200_000, 250);
      const took = Date.now() - started;
      // A little longer, for a second sender to show itself had the lease been shared.
      await new Promise((resolve) => setTimeout(resolve, 3000));
      assert.ok(done, `${receiver.got.length} requests, ${log.length} events`);
      assert.ok(took > LEASE_SECONDS * 1000, `the sending outlasted a lease (${took} ms)`);
      assert.deepEqual(
        receiver.got.map((r) => r.id),
        log,
        'each event once, in the log order',
      );
    } finally {
      for (const server of servers) await stop(server);
    }
  });
}
