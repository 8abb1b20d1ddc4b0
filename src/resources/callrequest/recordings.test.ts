/**
 * Recordings you can get (issue 16 item 6), end to end: a campaign with `record_calls` dialled
 * by the engine over the simulator, which writes a short generated WAV per answered call under
 * DATA_DIR; the call's recordings are listed at /rest-api/callrequest/<id>/recordings/ and
 * downloaded whole or by Range (206), only by the campaign's owner (or an admin); the CDR CSV
 * names the recording; the owner's recording_retention_days deletes expired files and rows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../db/database.ts';
import { systemClock } from '../../clock.ts';
import { SimulatorDriver } from '../../drivers/voice/simulator.ts';
import { flowOf, pass, scenario, section } from '../../engine/engine.fixtures.ts';
import { makeEngine, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, testApp, testConfig } from '../../../test/helpers.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dialer-recordings-'));
after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
const t = await testApp({ config: testConfig({ dataDir }) });
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const mallory = await makeUser(db);

/** A record_calls campaign of one number, called once over the simulator (answered); its owner, clock and callrequest id. */
async function recordedCall(opts: { recordCalls?: boolean } = {}) {
  const s = await scenario(db, {
    campaign: { record_calls: opts.recordCalls ?? true, expirationdate: '2099-01-01T00:00:00Z', survey_snapshot: flowOf([section({ type: 1, script: 'Hello' })]) },
    clockAt: new Date().toISOString(),
  });
  // The simulator on the real clock at 1000× (a call lasts milliseconds), writing into DATA_DIR.
  const simulator = new SimulatorDriver({ answer_rate: 1, machine_rate: 0, talk_seconds: [5, 5], time_scale: 1000 }, { clock: systemClock, dataDir });
  const engine = makeEngine(db, s.clock, { driver: simulator, dataDir });
  await pass({ engine });
  const calls = await call(t.app, s.user.auth, 'GET', `/rest-api/callrequest/?campaign_id=${s.campaignId}`);
  assert.equal(calls.data.count, 1, calls.body);
  return { s, engine, callrequest: calls.data.results[0].id as number };
}

const list = (id: number, auth: string) => call(t.app, auth, 'GET', `/rest-api/callrequest/${id}/recordings/`);
const download = (url: string, auth: string, range?: string) =>
  t.app.inject({ method: 'GET', url: new URL(url).pathname, headers: { authorization: auth, ...(range ? { range } : {}) } });

describe(`call recordings (${dbLabel})`, () => {
  test('a record_calls campaign\'s answered call lists its whole-call recording, downloadable whole and by Range', async () => {
    const { s, callrequest } = await recordedCall();
    const res = await list(callrequest, s.user.auth);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.data.count, 1, res.body);
    const [rec] = res.data.results;
    assert.equal(rec.kind, 'call');
    assert.equal(rec.callrequest, `http://localhost:80/rest-api/callrequest/${callrequest}/`);
    assert.equal(rec.download, `http://localhost:80/rest-api/callrequest/${callrequest}/recordings/${rec.id}/download/`);
    const file = fs.readFileSync(path.join(dataDir, 'recordings', `${(await call(t.app, s.user.auth, 'GET', `/rest-api/callrequest/${callrequest}/`)).data.request_uuid}-call.wav`));

    const whole = await download(rec.download, s.user.auth);
    assert.equal(whole.statusCode, 200, whole.body);
    assert.equal(whole.headers['content-type'], 'audio/wav');
    assert.equal(whole.headers['accept-ranges'], 'bytes');
    assert.equal(whole.rawPayload.subarray(0, 4).toString(), 'RIFF');
    assert.ok(whole.rawPayload.equals(file), 'the bytes written by the simulator');

    const part = await download(rec.download, s.user.auth, 'bytes=100-199');
    assert.equal(part.statusCode, 206, part.body);
    assert.equal(part.headers['content-range'], `bytes 100-199/${file.length}`);
    assert.ok(part.rawPayload.equals(file.subarray(100, 200)));
    const tail = await download(rec.download, s.user.auth, 'bytes=-10');
    assert.equal(tail.statusCode, 206);
    assert.ok(tail.rawPayload.equals(file.subarray(file.length - 10)));
    const past = await download(rec.download, s.user.auth, `bytes=${file.length + 5}-`);
    assert.equal(past.statusCode, 416, past.body);
    assert.equal(past.headers['content-range'], `bytes */${file.length}`);
  });

  test("another user's call recordings are 404 (list and download); an admin sees them", async () => {
    const { s, callrequest } = await recordedCall();
    const mine = await list(callrequest, s.user.auth);
    const url = mine.data.results[0].download as string;
    assert.equal((await list(callrequest, mallory.auth)).statusCode, 404);
    const theirs = await download(url, mallory.auth);
    assert.equal(theirs.statusCode, 404, theirs.body);
    assert.deepEqual(JSON.parse(theirs.body), { detail: 'Not found.' });
    assert.equal((await list(callrequest, admin.auth)).data.count, 1);
    assert.equal((await download(url, admin.auth)).statusCode, 200);
    assert.equal((await download(url.replace(/recordings\/\d+\//, 'recordings/999999999/'), s.user.auth)).statusCode, 404);
  });

  test('without record_calls nothing is recorded; a record section\'s message is listed as "message"', async () => {
    const { s, callrequest } = await recordedCall({ recordCalls: false });
    assert.equal((await list(callrequest, s.user.auth)).data.count, 0);
    const t2 = await scenario(db, { campaign: { survey_snapshot: flowOf([section({ type: 5, question: 'Leave a message' })]) }, script: () => ({ recordSeconds: 4 }) });
    await pass(t2);
    const calls = await call(t.app, t2.user.auth, 'GET', `/rest-api/callrequest/?campaign_id=${t2.campaignId}`);
    const res = await list(calls.data.results[0].id, t2.user.auth);
    assert.deepEqual(res.data.results.map((r: { kind: string }) => r.kind), ['message']);
  });

  test('the CDR CSV has a recording column: the A-leg\'s recording URL, or empty', async () => {
    const { s, callrequest } = await recordedCall();
    const rec = (await list(callrequest, s.user.auth)).data.results[0];
    const csv = await call(t.app, s.user.auth, 'GET', `/rest-api/cdr/?campaign_id=${s.campaignId}&format=csv`);
    const [header, row] = csv.body.trim().split('\r\n');
    assert.match(header, /,contact_id,recording$/);
    assert.ok(row.endsWith(`,${rec.download}`), row);
    const plain = await recordedCall({ recordCalls: false });
    const csv2 = await call(t.app, plain.s.user.auth, 'GET', `/rest-api/cdr/?campaign_id=${plain.s.campaignId}&format=csv`);
    assert.ok(csv2.body.trim().split('\r\n')[1].endsWith(','), csv2.body);
  });

  test("recording_retention_days (set on /accounts/) deletes the owner's expired recordings, files and rows; others' stay", async () => {
    const kept = await recordedCall();
    const gone = await recordedCall();
    const set = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${gone.s.userId}/`, { recording_retention_days: 2 });
    assert.equal(set.statusCode, 202, set.body);
    assert.equal((await call(t.app, admin.auth, 'GET', `/rest-api/accounts/${gone.s.userId}/`)).data.recording_retention_days, 2);
    const bad = await call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${gone.s.userId}/`, { recording_retention_days: 0 });
    assert.equal(bad.statusCode, 400, bad.body);
    const goneRec = (await list(gone.callrequest, gone.s.user.auth)).data.results[0];
    const keptRec = (await list(kept.callrequest, kept.s.user.auth)).data.results[0];
    const goneFile = path.join(dataDir, 'recordings', `${(await call(t.app, admin.auth, 'GET', `/rest-api/callrequest/${gone.callrequest}/`)).data.request_uuid}-call.wav`);
    assert.ok(fs.existsSync(goneFile));
    // A day later it is still young enough; three days later it is gone.
    await gone.s.clock.advance(24 * 3600_000);
    await pass({ engine: gone.engine });
    assert.equal((await list(gone.callrequest, gone.s.user.auth)).data.count, 1);
    await gone.s.clock.advance(2 * 24 * 3600_000);
    await pass({ engine: gone.engine });
    assert.equal((await list(gone.callrequest, gone.s.user.auth)).data.count, 0);
    assert.equal(fs.existsSync(goneFile), false, 'the file is deleted');
    assert.equal((await download(goneRec.download, gone.s.user.auth)).statusCode, 404);
    assert.equal((await download(keptRec.download, kept.s.user.auth)).statusCode, 200, 'a user without retention keeps theirs');
  });

  test('a deleted campaign leaves no recording behind: the engine deletes its calls\' files, then their rows', async () => {
    const { s, engine, callrequest } = await recordedCall();
    const uuid = (await call(t.app, s.user.auth, 'GET', `/rest-api/callrequest/${callrequest}/`)).data.request_uuid;
    const file = path.join(dataDir, 'recordings', `${uuid}-call.wav`);
    assert.ok(fs.existsSync(file));
    const [before] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from recordings`);
    await call(t.app, s.user.auth, 'PATCH', `/rest-api/campaigns/${s.campaignId}/`, { status: 4 });
    const deleted = await call(t.app, s.user.auth, 'DELETE', `/rest-api/campaigns/${s.campaignId}/`);
    assert.equal(deleted.statusCode, 204, deleted.body);
    assert.ok(fs.existsSync(file), 'the API leaves the file to the engine');
    // The engine's recording pass runs at most once an hour of its clock.
    await s.clock.advance(3600_000 + 1000);
    await pass({ engine });
    assert.equal(fs.existsSync(file), false, 'the file is deleted');
    const [after] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from recordings`);
    assert.equal(after.n, before.n - 1, 'and its row');
  });
});
