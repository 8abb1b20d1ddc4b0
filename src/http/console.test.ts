/**
 * The console's serving rules (src/http/console.ts) through app.inject(), on a build made here
 * in a temporary folder: hashed assets cached for a year, index.html never, the precompressed
 * file the client accepts, the SPA fallback for browser navigations, and /rest-api/ untouched.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, describe, test } from 'node:test';
import { testApp, testDatabase, testConfig } from '../../test/helpers.ts';

const built = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-console-'));
const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-console-none-'));
after(() => {
  fs.rmSync(built, { recursive: true, force: true });
  fs.rmSync(empty, { recursive: true, force: true });
});
const INDEX = '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/index-abc123.js"></script></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(2000))});`;
fs.mkdirSync(path.join(built, 'assets'));
fs.writeFileSync(path.join(built, 'index.html'), INDEX);
fs.writeFileSync(path.join(built, 'assets/index-abc123.js'), SCRIPT);
fs.writeFileSync(path.join(built, 'assets/index-abc123.js.gz'), zlib.gzipSync(SCRIPT));
fs.writeFileSync(path.join(built, 'assets/index-abc123.js.br'), zlib.brotliCompressSync(SCRIPT));

const html = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' };

describe('the console at / (a build present)', async () => {
  const database = await testDatabase();
  const { app } = await testApp({ database, config: testConfig(), consoleDir: built });

  test('/ and a deep link a browser opens answer index.html, never cached', async () => {
    for (const url of ['/', '/campaigns/3', '/some/deep/link?x=1']) {
      const res = await app.inject({ url, headers: html });
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
      assert.equal(res.body, INDEX, url);
      assert.match(String(res.headers['content-type']), /^text\/html/);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
    }
  });

  test('a hashed asset is cached for a year, sent brotli or gzip as the client accepts, plain otherwise', async () => {
    const url = '/assets/index-abc123.js';
    const br = await app.inject({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    assert.equal(br.statusCode, 200);
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.match(String(br.headers.vary), /accept-encoding/i);
    assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), SCRIPT);
    const gz = await app.inject({ url, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.equal(zlib.gunzipSync(gz.rawPayload).toString(), SCRIPT);
    const plain = await app.inject({ url });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.equal(plain.body, SCRIPT);
  });

  test('a missing asset, and a path no browser navigates to, answer the JSON 404', async () => {
    for (const [url, headers] of [['/assets/nope-123.js', html], ['/some/deep/link', { accept: 'application/json' }]] as const) {
      const res = await app.inject({ url, headers });
      assert.equal(res.statusCode, 404, url);
      assert.deepEqual(res.json(), { detail: 'Not found.' });
    }
  });

  test('/rest-api/ keeps its answers: unknown paths 404 as JSON (HTML asked or not), 405, the docs, /healthz', async () => {
    for (const url of ['/rest-api/nope/', '/rest-api/nope', '/rest-api/campaigns/x/y/']) {
      const res = await app.inject({ url, headers: html });
      assert.equal(res.statusCode, 404, `${url}: ${res.body}`);
      assert.deepEqual(res.json(), { detail: 'Not found.' });
    }
    const stranger = { authorization: `Basic ${Buffer.from('nobody:pw').toString('base64')}` };
    assert.equal((await app.inject({ url: '/rest-api/', headers: html })).statusCode, 401);
    assert.equal((await app.inject({ method: 'POST', url: '/rest-api/queue/', headers: stranger, payload: {} })).statusCode, 401);
    assert.equal((await app.inject({ method: 'POST', url: '/', payload: {} })).statusCode, 404);
    assert.equal((await app.inject({ url: '/rest-api/docs/', headers: html })).statusCode, 200);
    assert.equal((await app.inject({ url: '/healthz' })).json().status, 'ok');
  });
});

describe('the console at / (not built)', async () => {
  const database = await testDatabase();
  const { app } = await testApp({ database, config: testConfig(), consoleDir: empty });

  test('/ answers a short page saying how to build the console', async () => {
    const res = await app.inject({ url: '/', headers: html });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /npm run build:console/);
    assert.match(res.body, /href="\/rest-api\/docs"/);
    assert.equal(res.headers['cache-control'], 'no-cache');
  });
});
