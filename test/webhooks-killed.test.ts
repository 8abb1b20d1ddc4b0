/**
 * Webhooks survive a crash (issue 14 §5): events committed while the receiver is down, the
 * server killed with SIGKILL before it could deliver them, the receiver up again, the server
 * started again: every event arrives. A real server process, not the app in this process.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { request, startServe, stop } from './cli-process.ts';
import { basic, dbLabel, eventually, freshPostgresDatabase, onPostgres } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-webhooks-killed-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));
const admin = basic('admin', 'admin-pw');

/** A port nothing listens on yet (the receiver starts on it later). */
async function freePort(): Promise<number> {
  const probe = http.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

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
    // A delivery under way at the kill is leased for 60 s before another round takes it.
    assert.ok(await eventually(async () => ended.every((id) => got.some((e) => e.data.id === id)), 150_000), `received ${JSON.stringify(got)}`);
    const unique = new Set(got.map((e) => e.id));
    assert.equal(unique.size, 3, 'three events, each with its own id');
  } finally {
    await stop(second);
  }
});
