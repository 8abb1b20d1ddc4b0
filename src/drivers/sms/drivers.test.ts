/** The SMS simulator (seeded reports on the injected clock), the generic HTTP driver against a local server, and the registry. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { ManualClock } from '../../clock.ts';
import type { DeliveryReport, SmsEvents } from './driver.ts';
import { HttpSmsDriver } from './http.ts';
import { createSmsDriver, validateSmsDriverSettings } from './index.ts';
import { KannelDriver, kannelReportStatus } from './kannel.ts';

function collector() {
  const reports: DeliveryReport[] = [];
  const events: SmsEvents = { report: async (_id, r) => void reports.push(r), inbound: async () => {} };
  return { reports, events };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

/** A provider answering from `answer`, recording the requests. */
const seen: { method: string; url: string; body: string; type: string }[] = [];
let answer: { status: number; body: string } = { status: 200, body: '' };
const provider = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', body, type: req.headers['content-type'] ?? '' });
    res.writeHead(answer.status).end(answer.body);
  });
});
await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(provider.address() as AddressInfo).port}`;
after(() => new Promise((resolve) => provider.close(resolve)));

describe('SMS simulator', () => {
  test('accepts every message, then reports delivered or failed by the rates after delay_ms of the clock', async () => {
    const clock = new ManualClock();
    const { reports, events } = collector();
    const gateway = { id: 1, name: 's', driver: 'simulator', callback_secret: 'x', settings: { delivery_rate: 0.7, failure_rate: 0.2, seed: 9, delay_ms: 5000 } };
    const sim = createSmsDriver(gateway, { clock, events });
    const results = [];
    for (let id = 1; id <= 1000; id++) results.push(await sim.send({ messageId: id, to: '1', from: '2', text: 'x' }));
    assert.deepEqual(results[0], { ok: true, gatewayMessageId: 'sim-1' });
    await tick();
    assert.equal(reports.length, 0, 'no report before delay_ms');
    await clock.advance(5000);
    await tick();
    const delivered = reports.filter((r) => r.status === 'delivered').length;
    const failed = reports.filter((r) => r.status === 'failed').length;
    assert.ok(delivered > 640 && delivered < 760, `delivered ${delivered}`);
    assert.ok(failed > 150 && failed < 250, `failed ${failed}`);
    assert.ok(reports.length < 1000, 'the rest get no report');
    assert.deepEqual(reports[0].at, clock.now());
    // The same seed and message id give the same fate.
    const again = collector();
    const twin = createSmsDriver(gateway, { clock, events: again.events });
    await twin.send({ messageId: 42, to: '1', from: '2', text: 'x' });
    await clock.advance(5000);
    await tick();
    assert.equal(again.reports[0]?.status, reports.find((r) => r.messageId === 42)?.status);
    await sim.close();
    await twin.close();
  });
});

describe('HTTP SMS driver', () => {
  test('GET: the URL template is filled URL-encoded; success and message id come from the regexes', async () => {
    answer = { status: 200, body: 'ID: abc123 OK' };
    const driver = new HttpSmsDriver({ url_template: `${base}/send?user={username}&pw={password}&to={to}&from={from}&text={text}&ref={id}`, success_regex: 'OK$', message_id_regex: 'ID: (\\w+)', username: 'me', password: 'p&w' });
    const result = await driver.send({ messageId: 5, to: '+15550001', from: 'Shop', text: 'Olá & bye' });
    assert.deepEqual(result, { ok: true, gatewayMessageId: 'abc123' });
    const req = seen[seen.length - 1];
    assert.equal(req.method, 'GET');
    assert.equal(req.url, '/send?user=me&pw=p%26w&to=%2B15550001&from=Shop&text=Ol%C3%A1%20%26%20bye&ref=5');
  });

  test('POST with a JSON body template; a body not matching success_regex is a failure (retry on 5xx)', async () => {
    answer = { status: 200, body: '{"accepted":true}' };
    const driver = new HttpSmsDriver({ url_template: `${base}/messages`, method: 'POST', body_template: '{"to":"{to}","text":"{text}"}', success_regex: '"accepted":true' });
    const ok = await driver.send({ messageId: 6, to: '15550002', from: '', text: 'say "hi"\n' });
    assert.deepEqual(ok, { ok: true, gatewayMessageId: '6' });
    const req = seen[seen.length - 1];
    assert.deepEqual([req.method, req.type, JSON.parse(req.body)], ['POST', 'application/json', { to: '15550002', text: 'say "hi"\n' }]);
    answer = { status: 503, body: 'busy' };
    assert.deepEqual(await driver.send({ messageId: 7, to: '1', from: '', text: 'x' }), { ok: false, error: 'http: HTTP 503 busy', retry: true });
    answer = { status: 400, body: '{"accepted":false}' };
    assert.deepEqual(await driver.send({ messageId: 8, to: '1', from: '', text: 'x' }), { ok: false, error: 'http: HTTP 400 {"accepted":false}', retry: false });
  });
});

describe('Kannel driver request and report types', () => {
  test('the sendsms URL carries the credentials, text, smsc, dlr-mask and the report URL with %d', () => {
    const driver = new KannelDriver({
      id: 3, name: 'k', driver: 'kannel', callback_secret: 'S3cr3t',
      settings: { sendsms_url: 'http://127.0.0.1:13013/cgi-bin/sendsms', username: 'u', password: 'p', smsc_id: 'fake1', callback_base_url: 'http://127.0.0.1:8000/' },
    });
    const gsm = new URL(driver.requestUrl({ messageId: 77, to: '+15550001', from: '123', text: 'Hi €' }));
    assert.deepEqual(Object.fromEntries(gsm.searchParams), {
      username: 'u', password: 'p', from: '123', to: '+15550001', text: 'Hi €', charset: 'UTF-8', smsc: 'fake1', 'dlr-mask': '31',
      'dlr-url': 'http://127.0.0.1:8000/rest-api/sms-gateway/3/report/S3cr3t/?id=77&type=%d',
    });
    const ucs2 = new URL(driver.requestUrl({ messageId: 78, to: '1', from: '', text: 'Привет' }));
    assert.equal(ucs2.searchParams.get('coding'), '2');
    assert.equal(ucs2.searchParams.get('from'), null);
    assert.deepEqual([1, 2, 4, 8, 16, 0].map(kannelReportStatus), ['delivered', 'failed', 'sent', 'sent', 'failed', undefined]);
  });

  test('the registry knows the four drivers and rejects others', () => {
    assert.deepEqual(validateSmsDriverSettings('simulator', {}), []);
    assert.deepEqual(validateSmsDriverSettings('pigeon', {}), ['Unknown driver "pigeon"; known drivers: simulator, kannel, smpp, http.']);
    assert.deepEqual(validateSmsDriverSettings('http', { url_template: 'x', success_regex: 'ok', method: 'GET', body_template: 'b' }), [
      'url_template: must be an http:// or https:// URL (with {to}, {from}, {text}, {id} placeholders).',
    ]);
    assert.throws(() => createSmsDriver({ id: 1, name: 'x', driver: 'pigeon', settings: {}, callback_secret: '' }, { clock: new ManualClock(), events: collector().events }), /unknown SMS driver "pigeon"/);
  });
});
