/**
 * `serve` stops on SIGTERM even while clients hold the live event stream open (a console tab
 * left open is one): the streams are ended first, then the server closes and the process exits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { freshEnv, startServe, stop } from './cli-process.ts';
import { basic, dbLabel } from './helpers.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-shutdown-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

test(`SIGTERM stops the server while an event stream is open; the stream ends cleanly (${dbLabel})`, async () => {
  const server = await startServe(await freshEnv(path.join(root, 'data')));
  const auth = basic('admin', 'admin-pw');
  const res = await fetch(`${server.base}/rest-api/events/`, { headers: { authorization: auth } });
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  assert.match(first, /^: stream open/);

  const began = Date.now();
  assert.equal(await stop(server, 20_000), 0, server.output());
  assert.ok(Date.now() - began < 20_000);
  let ended = false;
  for (;;) {
    const { done } = await reader.read().catch(() => ({ done: true }));
    if (done) {
      ended = true;
      break;
    }
  }
  assert.ok(ended, 'the stream did not end');
});

test(`streams whose clients left before their first read neither live on nor keep a stopped server alive (${dbLabel})`, async () => {
  const server = await startServe(await freshEnv(path.join(root, 'data-left')));
  const { port } = new URL(server.base);
  const auth = basic('admin', 'admin-pw');
  // Each client asks for the stream and is gone at once: the server is still checking the
  // password and reading where the log ends when the connection closes.
  for (let i = 0; i < 5; i++) {
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(`GET /rest-api/events/ HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: ${auth}\r\n\r\n`);
    socket.destroy();
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const began = Date.now();
  assert.equal(await stop(server, 20_000), 0, server.output());
  assert.ok(Date.now() - began < 10_000, `stopped in ${Date.now() - began} ms`);
  assert.doesNotMatch(server.output(), /still open/, server.output());
});
