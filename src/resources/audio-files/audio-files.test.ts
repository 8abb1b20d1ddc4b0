import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import crypto from 'node:crypto';
import { makeMp3, makeOgg, makeWav, recordings } from '../../../test/audio-fixtures.ts';
import { makeUser, type TestUser, unique } from '../../../test/factories.ts';
import { call, dbLabel, testApp, testConfig } from '../../../test/helpers.ts';
import { eq } from 'drizzle-orm';
import { audioFiles, sectionTemplates, surveyTemplates } from '../../db/schema.ts';

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-audio-'));
const smallDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-audio-small-'));
after(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(smallDataDir, { recursive: true, force: true });
});

const t = await testApp({ config: testConfig({ dataDir }) });
// The same database, with a 1 KB upload limit and its own DATA_DIR (to see that nothing is left).
const small = await testApp({ database: t.database, config: testConfig({ dataDir: smallDataDir, maxUploadBytes: 1024 }) });
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

interface FilePart {
  filename?: string;
  type?: string;
  content: Buffer;
}

/** A multipart/form-data body: text fields, and file parts given as {filename, type, content}. */
function multipart(fields: Record<string, string | FilePart>): { payload: Buffer; contentType: string } {
  const boundary = `----cd${unique()}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${name}"`;
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`${head}\r\n\r\n${value}\r\n`));
      continue;
    }
    head += value.filename === undefined ? '; filename=""' : `; filename="${value.filename}"`;
    head += `\r\nContent-Type: ${value.type ?? 'application/octet-stream'}\r\n\r\n`;
    chunks.push(Buffer.from(head), value.content, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

async function upload(user: TestUser | undefined, fields: Record<string, string | FilePart>, app = t.app) {
  const { payload, contentType } = multipart(fields);
  const res = await app.inject({
    method: 'POST',
    url: '/rest-api/audio-files/',
    headers: { ...(user ? { authorization: user.auth } : {}), 'content-type': contentType },
    payload,
  });
  return Object.assign(res, { data: res.body ? JSON.parse(res.body) : undefined });
}

/** Uploads a 2 s WAV for `user` and returns the upload answer. */
async function uploadWav(user: TestUser, name = unique('greeting')) {
  const res = await upload(user, { name, audio_file: { filename: 'greeting.wav', type: 'audio/wav', content: makeWav(2) } });
  assert.equal(res.statusCode, 201, res.body);
  return res.data as { id: number; name: string; audio_file: string; user_id: number };
}

const storedFiles = (dir: string) => (fs.existsSync(path.join(dir, 'audio')) ? fs.readdirSync(path.join(dir, 'audio')) : []);

describe(`audio-files (${dbLabel})`, () => {
  test('uploading a WAV answers 201 with id, name, audio_file, user_id and a Location; the duration is read', async () => {
    const res = await upload(alice, { name: 'Welcome', audio_file: { filename: 'welcome.wav', type: 'audio/wav', content: makeWav(2) } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(Object.keys(res.data).sort(), ['audio_file', 'id', 'name', 'user_id']);
    assert.equal(res.data.name, 'Welcome');
    assert.equal(res.data.user_id, alice.id);
    assert.match(res.data.audio_file, /^audio\/audio-file-[a-z]{5}-\d{10}\.wav$/);
    assert.equal(res.headers.location, `http://localhost:80/rest-api/audio-files/${res.data.id}/`);
    assert.ok(fs.existsSync(path.join(dataDir, res.data.audio_file)));

    const read = await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${res.data.id}/`);
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(Object.keys(read.data).sort(), [
      'audio_file', 'channels', 'created_date', 'duration', 'id', 'name', 'sample_rate', 'updated_date', 'url', 'user',
    ]);
    assert.equal(read.data.duration, 2);
    assert.equal(read.data.sample_rate, 8000);
    assert.equal(read.data.channels, 1);
    assert.equal(read.data.user, `http://localhost:80/rest-api/users/${alice.id}/`);
    assert.match(read.data.created_date, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
  });

  test('an MP3 sent as application/octet-stream with no extension is accepted and stored as .mp3', async () => {
    const res = await upload(alice, { name: 'Menu', audio_file: { filename: 'menu', content: makeMp3(3) } });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.data.audio_file, /\.mp3$/);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${res.data.id}/`);
    assert.ok(Math.abs(read.data.duration - 3) < 0.1, read.body);
  });

  test('an OGG named .wav is stored as .ogg and downloaded as audio/ogg', async () => {
    const content = makeOgg(1.5);
    const res = await upload(alice, { name: 'Hold', audio_file: { filename: 'hold.wav', content } });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.data.audio_file, /\.ogg$/);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${res.data.id}/`);
    // Opus: 75 packets of 20 ms less the 312-sample pre-skip the header asks for.
    assert.equal(read.data.duration, 1.494, read.body);
    assert.equal(read.data.sample_rate, 48000, read.body);
    const file = await t.app.inject({ method: 'GET', url: `/rest-api/audio-files/${res.data.id}/download/`, headers: { authorization: alice.auth } });
    assert.equal(file.statusCode, 200);
    assert.equal(file.headers['content-type'], 'audio/ogg');
    assert.deepEqual(file.rawPayload, content);
  });

  test('a WAV downloads with its content type and its bytes', async () => {
    const content = makeWav(1);
    const res = await upload(alice, { name: 'Bye', audio_file: { filename: 'bye.wav', content } });
    const file = await t.app.inject({ method: 'GET', url: `/rest-api/audio-files/${res.data.id}/download`, headers: { authorization: alice.auth } });
    assert.equal(file.statusCode, 200, file.body);
    assert.equal(file.headers['content-type'], 'audio/wav');
    assert.deepEqual(file.rawPayload, content);
  });

  test('an MP3 with an ID3 tag is accepted as .mp3', async () => {
    const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]); // "ID3" v2.4, no frames
    const res = await upload(alice, { name: 'Tagged', audio_file: { filename: 'tagged.bin', content: Buffer.concat([id3, makeMp3(1)]) } });
    assert.equal(res.statusCode, 201, res.body);
    assert.match(res.data.audio_file, /\.mp3$/);
  });

  test('UTF-16 text (FF FE, like an MPEG frame sync) named .mp3 is refused', async () => {
    const content = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('hello, not audio at all', 'utf16le')]);
    const res = await upload(alice, { name: 'Text', audio_file: { filename: 'x.mp3', type: 'audio/mpeg', content } });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data), ['audio_file']);
  });

  test('a text file renamed .wav is refused with 400 under audio_file, and nothing is stored', async () => {
    const before = storedFiles(dataDir).length;
    const res = await upload(alice, { name: 'Fake', audio_file: { filename: 'fake.wav', type: 'audio/wav', content: Buffer.from('just some text, not audio\n') } });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(Object.keys(res.data), ['audio_file']);
    assert.equal(storedFiles(dataDir).length, before);
  });

  test('a form without name or file answers 400 listing both', async () => {
    const res = await upload(alice, { description: 'nothing useful' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { name: ['This field is required.'], audio_file: ['This field is required.'] });
    const empty = await upload(alice, { name: 'Empty', audio_file: { filename: 'e.wav', content: Buffer.alloc(0) } });
    assert.deepEqual(empty.data, { audio_file: ['The submitted file is empty.'] });
  });

  test('an upload over MAX_UPLOAD_MB answers 413 and leaves no file behind', async () => {
    const res = await upload(alice, { name: 'Long', audio_file: { filename: 'long.wav', content: makeWav(1) } }, small.app);
    assert.equal(res.statusCode, 413, res.body);
    assert.deepEqual(storedFiles(smallDataDir), []);
    const fits = await upload(alice, { name: 'Short', audio_file: { filename: 's.wav', content: makeWav(0.03) } }, small.app);
    assert.equal(fits.statusCode, 201, fits.body);
  });

  test('a JSON body on the upload answers 415', async () => {
    const res = await call(t.app, alice.auth, 'POST', '/rest-api/audio-files/', { name: 'x', audio_file: 'x.wav' });
    assert.equal(res.statusCode, 415, res.body);
  });

  test('a non-admin naming another user_id gets 400 under user; an admin may name anyone', async () => {
    const wav = { filename: 'a.wav', content: makeWav(0.5) };
    const res = await upload(alice, { name: 'Theirs', user_id: String(bob.id), audio_file: wav });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { user: ['Invalid hyperlink - Object does not exist.'] });
    const own = await upload(alice, { name: 'Mine', user_id: String(alice.id), audio_file: wav });
    assert.equal(own.statusCode, 201, own.body);
    const byAdmin = await upload(admin, { name: 'For Bob', user_id: String(bob.id), audio_file: wav });
    assert.equal(byAdmin.statusCode, 201, byAdmin.body);
    assert.equal(byAdmin.data.user_id, bob.id);
  });

  test("another user's audio files are invisible: 404 on read, download, update and delete", async () => {
    const mine = await uploadWav(alice);
    const list = await call(t.app, bob.auth, 'GET', '/rest-api/audio-files/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(list.data.results.every((r: { user: string }) => r.user.endsWith(`/users/${bob.id}/`)), list.body);
    for (const [method, url] of [
      ['GET', `/rest-api/audio-files/${mine.id}/`],
      ['GET', `/rest-api/audio-files/${mine.id}/download/`],
      ['PATCH', `/rest-api/audio-files/${mine.id}/`],
      ['DELETE', `/rest-api/audio-files/${mine.id}/`],
    ] as const) {
      const res = await call(t.app, bob.auth, method, url, method === 'PATCH' ? { name: 'x' } : undefined);
      assert.equal(res.statusCode, 404, `${method} ${url}: ${res.body}`);
    }
    const byAdmin = await call(t.app, admin.auth, 'GET', `/rest-api/audio-files/${mine.id}/`);
    assert.equal(byAdmin.statusCode, 200, byAdmin.body);
  });

  test('PATCH and PUT change the name and answer 202; a blank name is 400', async () => {
    const file = await uploadWav(alice);
    const patch = await call(t.app, alice.auth, 'PATCH', `/rest-api/audio-files/${file.id}/`, { name: 'Renamed' });
    assert.equal(patch.statusCode, 202, patch.body);
    assert.equal(patch.body, '');
    const put = await call(t.app, alice.auth, 'PUT', `/rest-api/audio-files/${file.id}/`, { name: 'Renamed again' });
    assert.equal(put.statusCode, 202, put.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${file.id}/`);
    assert.equal(read.data.name, 'Renamed again');
    assert.equal(read.data.audio_file, file.audio_file);
    const blank = await call(t.app, alice.auth, 'PATCH', `/rest-api/audio-files/${file.id}/`, { name: ' ' });
    assert.equal(blank.statusCode, 400, blank.body);
    assert.deepEqual(Object.keys(blank.data), ['name']);
  });

  test('DELETE answers 204 and removes the file from the disk', async () => {
    const file = await uploadWav(alice);
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/audio-files/${file.id}/`);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(fs.existsSync(path.join(dataDir, file.audio_file)), false);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${file.id}/`)).statusCode, 404);
  });

  test('DELETE answers 409 while a survey section plays the file, and keeps it', async () => {
    const file = await uploadWav(alice);
    const [survey] = await db.insert(surveyTemplates).values({ name: unique('survey'), user_id: alice.id }).returning();
    const [section] = await db
      .insert(sectionTemplates)
      .values({ survey_id: survey.id, order: 1, question: 'Press 1', invalid_audiofile_id: file.id })
      .returning();
    const res = await call(t.app, alice.auth, 'DELETE', `/rest-api/audio-files/${file.id}/`);
    assert.equal(res.statusCode, 409, res.body);
    assert.ok(fs.existsSync(path.join(dataDir, file.audio_file)));
    await db.delete(sectionTemplates).where(eq(sectionTemplates.id, section.id));
    assert.equal((await call(t.app, alice.auth, 'DELETE', `/rest-api/audio-files/${file.id}/`)).statusCode, 204);
  });

  test('requests without credentials answer 401', async () => {
    const res = await upload(undefined, { name: 'x', audio_file: { filename: 'a.wav', content: makeWav(0.1) } });
    assert.equal(res.statusCode, 401, res.body);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/audio-files/')).statusCode, 401);
  });
});

/** Uploads `content` for alice, expects a 400 under audio_file, and checks nothing was kept. */
async function refused(content: Buffer, filename = 'bad.bin') {
  const rows = () => db.$count(audioFiles, eq(audioFiles.user_id, alice.id));
  const [rowsBefore, filesBefore] = [await rows(), storedFiles(dataDir)];
  const res = await upload(alice, { name: unique('bad'), audio_file: { filename, content } });
  assert.equal(res.statusCode, 400, res.body);
  assert.deepEqual(Object.keys(res.data), ['audio_file'], res.body);
  assert.equal(res.data.audio_file.length, 1, res.body);
  assert.equal(await rows(), rowsBefore, 'no row after a 400');
  assert.deepEqual(storedFiles(dataDir), filesBefore, 'no file (stored or temporary) after a 400');
  return res.data.audio_file[0] as string;
}

/** Uploads `content` for alice and returns the record's read. */
async function accepted(content: Buffer) {
  const res = await upload(alice, { name: unique('ok'), audio_file: { filename: 'x', content } });
  assert.equal(res.statusCode, 201, res.body);
  const read = await call(t.app, alice.auth, 'GET', `/rest-api/audio-files/${res.data.id}/`);
  return { ...read.data, audio_file: res.data.audio_file } as { audio_file: string; duration: number; sample_rate: number; channels: number };
}

/** A copy of `wav` with the 16-bit field at `offset` (22 channels, 34 bits) set to `value`. */
function patched(wav: Buffer, offset: number, value: number): Buffer {
  const copy = Buffer.from(wav);
  copy.writeUInt16LE(value, offset);
  return copy;
}

describe(`audio-files: an upload is judged by decoding it (${dbLabel})`, () => {
  test('a real MP3 recording is accepted with its duration, sample rate and channels', async () => {
    const read = await accepted(recordings.mp3Mono8k());
    assert.match(read.audio_file, /\.mp3$/);
    assert.deepEqual([read.duration, read.sample_rate, read.channels], [1.008, 8000, 1]);
  });

  test('a real Ogg Vorbis stereo recording is accepted with its duration, sample rate and channels', async () => {
    const read = await accepted(recordings.oggStereo16k());
    assert.match(read.audio_file, /\.ogg$/);
    assert.deepEqual([read.duration, read.sample_rate, read.channels], [0.846, 16000, 2]);
  });

  test('a 16 kHz stereo WAV is accepted with its duration, sample rate and channels', async () => {
    const read = await accepted(makeWav(1.25, { sampleRate: 16000, channels: 2 }));
    assert.deepEqual([read.duration, read.sample_rate, read.channels], [1.25, 16000, 2]);
  });

  test('an ID3 header followed by random bytes is refused as not audio', async () => {
    const id3 = Buffer.from([0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 0]);
    const message = await refused(Buffer.concat([id3, crypto.randomBytes(40_000)]), 'song.mp3');
    // Random bytes hold a pair of frame-like headers now and then: then it is "damaged".
    assert.match(message, /not WAV, MP3 or OGG|damaged/);
  });

  test('an MP3 whose second half is random bytes is refused as damaged', async () => {
    const mp3 = makeMp3(2);
    const message = await refused(Buffer.concat([mp3, crypto.randomBytes(mp3.length)]), 'half.mp3');
    assert.match(message, /damaged/);
  });

  test('a WAV header claiming 0 or 65,535 channels is refused', async () => {
    for (const channels of [0, 65_535]) {
      const message = await refused(patched(makeWav(1), 22, channels), 'c.wav');
      assert.match(message, new RegExp(`claims ${channels} channels`));
    }
  });

  test('a WAV whose header and block size disagree is refused', async () => {
    assert.match(await refused(patched(makeWav(1), 22, 2), 'c.wav'), /inconsistent/);
  });

  test('truncated files are refused: a WAV shorter than its data chunk, an Ogg cut before its end', async () => {
    const wav = makeWav(1);
    assert.match(await refused(wav.subarray(0, wav.length / 2), 'cut.wav'), /truncated/);
    const ogg = recordings.oggStereo16k();
    assert.match(await refused(ogg.subarray(0, ogg.length - 1000), 'cut.ogg'), /truncated/);
  });

  test('audio a call cannot play is refused: 3 channels, 96 kHz, 4 kHz, 10 ms, over 10 minutes', async () => {
    assert.match(await refused(makeWav(0.5, { channels: 3 })), /3 channels/);
    assert.match(await refused(makeWav(0.5, { sampleRate: 96_000 })), /96000 Hz/);
    assert.match(await refused(makeWav(0.5, { sampleRate: 4000 })), /4000 Hz/);
    assert.match(await refused(makeWav(0.01)), /lasts 0\.010 s/);
    assert.match(await refused(makeWav(601, { sampleRate: 8000 })), /longer than 600 seconds/);
  });

  test('an Ogg whose header page the parser chokes on is a 400 naming it damaged, not a 500', async () => {
    const ogg = makeOgg(0.1);
    ogg[18] = 1; // the first page's sequence number: codec-parser then throws a TypeError
    assert.match(await refused(ogg, 'odd.ogg'), /OGG file is damaged/);
  });

  test('a WAV header with no samples is refused as decoding to nothing', async () => {
    assert.match(await refused(makeWav(0)), /no audio/);
  });
});
