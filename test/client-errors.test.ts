/**
 * What Node's HTTP parser rejects before a route sees it (headers or URL over 16 KB, a
 * malformed request) is answered in the contract's error shape, {"detail": "…"}, as every
 * other error is (found by the fuzzer: Fastify's default body is {"error", "message", "statusCode"}).
 */
import assert from 'node:assert/strict';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { dbLabel, testApp } from './helpers.ts';

const t = await testApp();
await t.app.listen({ host: '127.0.0.1', port: 0 });
const { port } = t.app.server.address() as AddressInfo;

/** Sends `raw` bytes on a new connection and returns the status and body of the answer. */
function rawRequest(raw: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(raw));
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString('utf8')));
    socket.on('error', () => {}); // the server closes the connection after answering
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(text)}`));
      resolve({ status, body: text.slice(text.indexOf('\r\n\r\n') + 4) });
    });
  });
}

test(`${dbLabel}: a URL over the header limit answers 431 {"detail"}`, async () => {
  const res = await rawRequest(`GET /rest-api/phonebook/?page=${'x'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.equal(res.status, 431, res.body);
  assert.deepEqual(Object.keys(JSON.parse(res.body)), ['detail'], res.body);
});

test(`${dbLabel}: a malformed request line answers 400 {"detail"}`, async () => {
  const res = await rawRequest('GET /rest-api/ HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n');
  assert.equal(res.status, 400, res.body);
  assert.equal(typeof JSON.parse(res.body).detail, 'string', res.body);
});
