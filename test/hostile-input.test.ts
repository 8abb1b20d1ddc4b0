/**
 * Hostile input (issue 11, items 6, 7, 11): what a fuzzer sends must be a 4xx naming the
 * problem, never a 500 and never a stream cut after its 200. A NUL character anywhere in a
 * request (PostgreSQL refuses 0x00 in text and jsonb), a multipart body without a boundary or
 * with too many parts, a page number past any integer, a filter that is not a number.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makeWav } from './audio-fixtures.ts';
import { makeUser, unique } from './factories.ts';
import { basic, call, dbLabel, testApp } from './helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db);
const NUL = 'Null characters are not allowed.';

async function created(auth: string, path: string, body: Record<string, unknown>) {
  const res = await call(t.app, auth, 'POST', path, body);
  assert.equal(res.statusCode, 201, `${path}: ${res.body}`);
  return res.data as { id: number; url: string };
}

const gateway = await created(admin.auth, '/rest-api/gateway/', { name: unique('gw') });
const smsGateway = await created(admin.auth, '/rest-api/sms-gateway/', { name: unique('sg') });
const phonebook = await created(alice.auth, '/rest-api/phonebook/', { name: unique('pb') });
const dnc = await created(alice.auth, '/rest-api/dnc-list/', { name: unique('dnc') });
const group = await created(alice.auth, '/rest-api/callerid_group/', { name: unique('grp') });
const survey = await created(alice.auth, '/rest-api/survey-template/', { name: unique('sv') });
const section = await created(alice.auth, '/rest-api/section-template/', { survey: survey.url, question: 'q' });
const campaign = await created(alice.auth, '/rest-api/campaigns/', {
  name: unique('c'),
  aleg_gateway: gateway.url,
  object_id: survey.url,
  phonebook: [phonebook.url],
});

/**
 * Every JSON create route with a valid body and the string field poisoned in it. The OpenAPI
 * test below fails when a route is added without a row here, so a new resource cannot miss it.
 */
// Appointment reminders (issue 17, item 8).
const calendar = await created(alice.auth, '/rest-api/calendar/', { name: unique('cal') });
const calendarEvent = await created(alice.auth, '/rest-api/event/', { title: 't', start: '2026-12-10 10:00', end: '2026-12-10 11:00', calendar: calendar.url });
const creates: Array<{ path: string; auth: string; body: () => Record<string, unknown>; field: string; status?: number }> = [
  { path: '/rest-api/payment/', auth: admin.auth, body: () => ({ amount: '1', user: alice.id, description: 'top-up' }), field: 'description' },
  { path: '/rest-api/phonebook/', auth: alice.auth, body: () => ({ name: unique('pb') }), field: 'name' },
  { path: '/rest-api/contact/', auth: alice.auth, body: () => ({ contact: '+12035550101', phonebook: phonebook.url, full_name: 'Ann' }), field: 'full_name' },
  { path: '/rest-api/dnc-list/', auth: alice.auth, body: () => ({ name: unique('dnc') }), field: 'name' },
  { path: '/rest-api/dnc/', auth: alice.auth, body: () => ({ name: unique('dnc') }), field: 'name' },
  { path: '/rest-api/dnc-contact/', auth: alice.auth, body: () => ({ phone_number: '+12035550102', dnc: dnc.url }), field: 'phone_number' },
  { path: '/rest-api/callerid_group/', auth: alice.auth, body: () => ({ name: unique('grp'), description: 'd' }), field: 'description' },
  { path: '/rest-api/callerid/', auth: alice.auth, body: () => ({ callerid_num: '+12035550103', callerid_group: group.url, callerid_name: 'n' }), field: 'callerid_name' },
  { path: '/rest-api/survey-template/', auth: alice.auth, body: () => ({ name: unique('sv') }), field: 'name' },
  { path: '/rest-api/section-template/', auth: alice.auth, body: () => ({ survey: survey.url, question: 'q2' }), field: 'question' },
  { path: '/rest-api/branching-template/', auth: alice.auth, body: () => ({ section: section.url, keys: '1' }), field: 'keys' },
  { path: '/rest-api/campaigns/', auth: alice.auth, body: () => ({ name: unique('c'), aleg_gateway: gateway.url, object_id: survey.url }), field: 'name' },
  { path: '/rest-api/subscriber-list/', auth: alice.auth, body: () => ({ campaign: campaign.url, duplicate_contact: '+12035550104', full_name: 'Bo' }), field: 'full_name' },
  { path: '/rest-api/did/', auth: alice.auth, body: () => ({ did_number: '+12035550105' }), field: 'did_number' },
  { path: '/rest-api/gateway/', auth: admin.auth, body: () => ({ name: unique('gw'), gateways: 'sofia/gateway/a/' }), field: 'gateways' },
  { path: '/rest-api/sms-gateway/', auth: admin.auth, body: () => ({ name: unique('sg'), description: 'd' }), field: 'description' },
  { path: '/rest-api/accounts/', auth: admin.auth, body: () => ({ username: unique('u'), password: 'pw-123456', first_name: 'F' }), field: 'first_name' },
  { path: '/rest-api/tokens/', auth: alice.auth, body: () => ({ user: String(alice.id) }), field: 'user' },
  { path: '/rest-api/sms-campaigns/', auth: alice.auth, body: () => ({ name: unique('s'), sms_gateway: smsGateway.url, text_message: 'hi' }), field: 'text_message' },
  { path: '/rest-api/webhook/', auth: alice.auth, body: () => ({ url: 'http://127.0.0.1:9/hook', description: 'd' }), field: 'description' },
  // Newfies API beyond the seed (issue 17); bulkcontact and subscriber answer 200 as Newfies does.
  { path: '/rest-api/sms-template/', auth: alice.auth, body: () => ({ label: 'l', template_key: unique('k'), sms_text: 'hi' }), field: 'sms_text' },
  { path: '/rest-api/mail-template/', auth: alice.auth, body: () => ({ label: 'l', template_key: unique('k'), subject: 's' }), field: 'subject' },
  { path: '/rest-api/bulkcontact/', auth: alice.auth, body: () => ({ phonebook_id: phonebook.id, phoneno_list: `+1${Date.now()}` }), field: 'phoneno_list', status: 200 },
  { path: '/rest-api/subscriber/', auth: alice.auth, body: () => ({ phonebook_id: phonebook.id, contact: '+12035550106', first_name: 'Al' }), field: 'first_name', status: 200 },
  { path: '/rest-api/calendar-setting/', auth: alice.auth, body: () => ({ label: 'l', caller_name: 'n' }), field: 'caller_name' },
  { path: '/rest-api/calendar-user/', auth: alice.auth, body: () => ({ username: unique('cu'), first_name: 'F' }), field: 'first_name' },
  { path: '/rest-api/calendar/', auth: alice.auth, body: () => ({ name: unique('cal') }), field: 'name' },
  { path: '/rest-api/rule/', auth: alice.auth, body: () => ({ name: 'r', frequency: 'DAILY', description: 'd' }), field: 'description' },
  { path: '/rest-api/event/', auth: alice.auth, body: () => ({ title: 't', start: '2026-12-10 10:00', end: '2026-12-10 11:00', calendar: calendar.url }), field: 'title' },
  { path: '/rest-api/alarm/', auth: alice.auth, body: () => ({ event: calendarEvent.url, alarm_phonenumber: '+12035550106', url_confirm: 'u' }), field: 'url_confirm' },
  // The console's sign-in: public, so the Basic header is ignored; the clean body signs in (201).
  { path: '/rest-api/session/', auth: alice.auth, body: () => ({ username: alice.username, password: alice.password }), field: 'username' },
];

/** A multipart body from parts in order: text fields, and files as {filename, content}. */
function multipart(parts: Array<[string, string | { filename: string; content: Buffer | string }]>) {
  const boundary = `----hostile${unique()}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of parts) {
    if (typeof value === 'string') {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    } else {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${value.filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`),
        Buffer.from(value.content),
        Buffer.from('\r\n'),
      );
    }
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), type: `multipart/form-data; boundary=${boundary}` };
}

async function post(url: string, body: { payload: Buffer; type: string }, auth = alice.auth) {
  const res = await t.app.inject({ method: 'POST', url, payload: body.payload, headers: { authorization: auth, 'content-type': body.type } });
  return Object.assign(res, { data: res.body ? JSON.parse(res.body) : undefined });
}

describe(`a NUL character anywhere is a 400 naming the field (${dbLabel})`, () => {
  test('every JSON create route: a NUL in a string field is a 400 on that field, and the clean body creates', async () => {
    for (const { path, auth, body, field, status } of creates) {
      const poisoned = body();
      poisoned[field] = `a\u0000b${String(poisoned[field])}`;
      const bad = await call(t.app, auth, 'POST', path, poisoned);
      assert.equal(bad.statusCode, 400, `${path}: ${bad.body}`);
      assert.deepEqual(bad.data, { [field]: [NUL] }, path);
      const good = await call(t.app, auth, 'POST', path, body());
      assert.equal(good.statusCode, status ?? 201, `${path} clean: ${good.body}`);
    }
  });

  test('the table above covers every JSON create route of the OpenAPI document', async () => {
    const doc = (await call(t.app, undefined, 'GET', '/rest-api/openapi.json')).data as {
      paths: Record<string, { post?: { requestBody?: { content?: Record<string, unknown> } } }>;
    };
    const jsonCreates = Object.entries(doc.paths)
      .filter(([path, ops]) => !path.includes('{') && ops.post?.requestBody?.content?.['application/json'])
      .map(([path]) => (path.endsWith('/') ? path : `${path}/`));
    assert.ok(jsonCreates.length >= 16, `the OpenAPI document lists ${jsonCreates.length} JSON create routes`);
    const covered = new Set(creates.map((c) => c.path));
    for (const path of jsonCreates) assert.ok(covered.has(path), `${path} has no row in the NUL table`);
  });

  test('nested: a NUL in a key or a value of additional_vars or settings, or in a list, names the top field', async () => {
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      [alice.auth, '/rest-api/contact/', { contact: '+12035550111', phonebook: phonebook.url, additional_vars: { 'k\u0000': 'v' } }, 'additional_vars'],
      [alice.auth, '/rest-api/contact/', { contact: '+12035550112', phonebook: phonebook.url, additional_vars: { k: { deep: ['x\u0000'] } } }, 'additional_vars'],
      [alice.auth, '/rest-api/contact/', { contact: '+12035550113', phonebook: phonebook.url, additional_vars: '{"k\\u0000": 1}' }, 'additional_vars'],
      [alice.auth, '/rest-api/subscriber-list/', { campaign: campaign.url, duplicate_contact: '+12035550114', additional_vars: { 'a\u0000': 1 } }, 'additional_vars'],
      [admin.auth, '/rest-api/gateway/', { name: unique('gw'), settings: { 'answer_rate\u0000': 0.5 } }, 'settings'],
      [alice.auth, '/rest-api/campaigns/', { name: unique('c'), aleg_gateway: gateway.url, object_id: survey.url, phonebook: ['\u0000'] }, 'phonebook'],
    ];
    for (const [auth, path, body, field] of cases) {
      const res = await call(t.app, auth, 'POST', path, body);
      assert.equal(res.statusCode, 400, `${path} ${JSON.stringify(body)}: ${res.body}`);
      assert.deepEqual(res.data, { [field]: [NUL] }, JSON.stringify(body));
    }
    const key = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb'), 'x\u0000': 1 });
    assert.equal(key.statusCode, 400, key.body);
    assert.deepEqual(key.data, { non_field_errors: [NUL] });
  });

  test('updates: PATCH and PUT with a NUL are a 400 and change nothing', async () => {
    for (const method of ['PATCH', 'PUT'] as const) {
      const res = await call(t.app, alice.auth, method, `/rest-api/phonebook/${phonebook.id}/`, { name: 'x\u0000' });
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(res.data, { name: [NUL] });
    }
    const queue = await call(t.app, admin.auth, 'PATCH', '/rest-api/queue/1/', { strategy: '\u0000' });
    assert.equal(queue.statusCode, 400, queue.body);
    const read = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${phonebook.id}/`);
    assert.ok(!read.data.name.includes('\u0000'));
  });

  test('query filters: a NUL in a value or a parameter name is a 400 naming it', async () => {
    const cases: Array<[string, string]> = [
      ['/rest-api/cdr/?phone_number=%00', 'phone_number'],
      ['/rest-api/cdr/?disposition=%00', 'disposition'],
      ['/rest-api/sms-message/?recipient_number=1%0023', 'recipient_number'],
      ['/rest-api/callerid/?areacode=%00', 'areacode'],
      ['/rest-api/callerid/?callerid_num=%00', 'callerid_num'],
      ['/rest-api/phonebook/?x%00y=1', 'non_field_errors'],
    ];
    for (const [url, name] of cases) {
      const res = await call(t.app, alice.auth, 'GET', url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.deepEqual(res.data, { [name]: [NUL] }, url);
    }
  });

  test('a CSV export whose filter is bad fails before its 200, whole', async () => {
    for (const url of ['/rest-api/cdr/?format=csv&disposition=%00', '/rest-api/cdr/?format=csv&phone_number=%00', '/rest-api/cdr/?format=csv&campaign_id=x']) {
      const res = await call(t.app, alice.auth, 'GET', url);
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(String(res.headers['content-type']), /^application\/json/);
    }
  });

  test('a Basic-auth username or password holding a NUL is a 401', async () => {
    for (const [username, password] of [[`${alice.username}\u0000`, alice.password], [alice.username, `${alice.password}\u0000`], ['\u0000', 'x']]) {
      const res = await call(t.app, basic(username, password), 'GET', '/rest-api/phonebook/');
      assert.equal(res.statusCode, 401, res.body);
    }
  });

  test('multipart fields: a NUL in the audio name or an import field is a 400 naming it', async () => {
    const audio = await post('/rest-api/audio-files/', multipart([['name', 'a\u0000b'], ['audio_file', { filename: 'a.wav', content: makeWav(1) }]]));
    assert.equal(audio.statusCode, 400, audio.body);
    assert.deepEqual(audio.data, { name: [NUL] });
    const csv = await post(`/rest-api/phonebook/${phonebook.id}/import/`, multipart([['skip_duplicates', '\u0000'], ['file', { filename: 'a.csv', content: 'contact\n+12035550121\n' }]]));
    assert.equal(csv.statusCode, 400, csv.body);
    assert.deepEqual(csv.data, { skip_duplicates: [NUL] });
  });

  test('a CSV import cell holding a NUL past the first 64 KB rejects that row with its line', async () => {
    const rows = ['contact,full_name,city'];
    for (let i = 0; i < 700; i++) rows.push(`+1203555${String(1000 + i)},${'n'.repeat(90)},x`);
    rows.push('+12035552999,bad\u0000name,x');
    const res = await post(`/rest-api/phonebook/${phonebook.id}/import/`, multipart([['file', { filename: 'a.csv', content: `${rows.join('\n')}\n` }]]));
    assert.equal(res.statusCode, 201, res.body.slice(0, 500));
    assert.equal(res.data.imported, 700);
    assert.deepEqual(res.data.rejected, [{ line: 702, error: NUL }]);
  });
});

describe(`multipart uploads that are malformed are a 400 (${dbLabel})`, () => {
  test('multipart/form-data without a boundary is a 400, on the audio upload and on an import', async () => {
    for (const url of ['/rest-api/audio-files/', `/rest-api/phonebook/${phonebook.id}/import/`]) {
      const res = await post(url, { payload: Buffer.from('--x\r\n\r\n'), type: 'multipart/form-data' });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(res.data.detail, /boundary/);
    }
  });

  // Without the check this request waited forever: a timeout makes that a failure.
  test('a body that ends inside its file part is a 400, not a request that never answers', { timeout: 20_000 }, async () => {
    const boundary = 'cutshort';
    const payload = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\ncut\r\n--${boundary}\r\nContent-Disposition: form-data; name="audio_file"; filename="a.wav"\r\n\r\nRIFF`);
    const csv = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\ncontact\n+1203555`);
    for (const [url, body] of [['/rest-api/audio-files/', payload], [`/rest-api/phonebook/${phonebook.id}/import/`, csv]] as const) {
      const res = await post(url, { payload: body, type: `multipart/form-data; boundary=${boundary}` });
      assert.equal(res.statusCode, 400, `${url}: ${res.body}`);
      assert.match(res.data.detail, /ends inside a file/);
    }
  });

  test('two files in one upload is a 400 saying so', async () => {
    const wav = makeWav(1);
    const audio = await post('/rest-api/audio-files/', multipart([['name', 'two'], ['audio_file', { filename: 'a.wav', content: wav }], ['other', { filename: 'b.wav', content: wav }]]));
    assert.equal(audio.statusCode, 400, audio.body);
    assert.match(audio.data.detail, /one file/);
    const csv = 'contact\n+12035550131\n';
    const pb = await created(alice.auth, '/rest-api/phonebook/', { name: unique('pb') });
    const imported = await post(`/rest-api/phonebook/${pb.id}/import/`, multipart([['file', { filename: 'a.csv', content: csv }], ['file2', { filename: 'b.csv', content: csv }]]));
    assert.equal(imported.statusCode, 400, imported.body);
    assert.match(imported.data.detail, /one file/);
    const contacts = await call(t.app, alice.auth, 'GET', `/rest-api/contact/?phonebook_id=${pb.id}`);
    assert.equal(contacts.data.count, 0, 'a refused upload imports nothing');
  });

  test('too many parts in one upload is a 400 saying so', async () => {
    const fields: Array<[string, string]> = Array.from({ length: 30 }, (_, i) => [`f${i}`, 'x']);
    const audio = await post('/rest-api/audio-files/', multipart([['name', 'many'], ...fields, ['audio_file', { filename: 'a.wav', content: makeWav(1) }]]));
    assert.equal(audio.statusCode, 400, audio.body);
    assert.match(audio.data.detail, /fields/);
    const csv = await post(`/rest-api/phonebook/${phonebook.id}/import/`, multipart([...fields, ['file', { filename: 'a.csv', content: 'contact\n+12035550141\n' }]]));
    assert.equal(csv.statusCode, 400, csv.body);
    assert.match(csv.data.detail, /fields/);
  });
});

describe(`pages and filters (${dbLabel})`, () => {
  test('a page number past the integer range is 404 "Invalid page." on every list and the bare-array slice', async () => {
    const root = (await call(t.app, admin.auth, 'GET', '/rest-api/')).data as Record<string, string>;
    for (const url of Object.values(root)) {
      const path = new URL(url).pathname;
      for (const page of ['99999999999999999999', '2147483648', '1e400']) {
        const res = await call(t.app, admin.auth, 'GET', `${path}?page=${page}`);
        assert.equal(res.statusCode, 404, `${path}?page=${page}: ${res.body}`);
        assert.deepEqual(res.data, { detail: 'Invalid page.' }, path);
      }
    }
  });

  test('every whole-number filter of every list answers 400 naming it for "abc"', async () => {
    const filters: Array<[string, string]> = [
      ['contact', 'phonebook_id'],
      ['dnc-contact', 'dnc_id'],
      ['section-template', 'survey_id'],
      ['branching-template', 'section_id'],
      ['callerid', 'callerid_group_id'],
      ['callrequest', 'campaign_id'],
      ['callrequest', 'status'],
      ['subscriber-list', 'campaign_id'],
      ['subscriber-list', 'status'],
      ['sms-message', 'sms_campaign_id'],
      ['cdr', 'campaign_id'],
    ];
    for (const [resource, name] of filters) {
      for (const value of ['abc', '1.5', '-1']) {
        const res = await call(t.app, alice.auth, 'GET', `/rest-api/${resource}/?${name}=${value}`);
        assert.equal(res.statusCode, 400, `${resource}?${name}=${value}: ${res.body}`);
        assert.deepEqual(res.data, { [name]: ['Enter a number.'] }, `${resource}?${name}=${value}`);
      }
      const big = await call(t.app, alice.auth, 'GET', `/rest-api/${resource}/?${name}=99999999999`);
      assert.equal(big.statusCode, 400, `${resource}?${name}=99999999999: ${big.body}`);
      assert.deepEqual(big.data, { [name]: ['Ensure this value is less than or equal to 2147483647.'] });
    }
  });

  test('a repeated text filter reads its last value (as Django does) instead of failing', async () => {
    for (const url of ['/rest-api/cdr/?disposition=a&disposition=b', '/rest-api/cdr/?phone_number=1&phone_number=2', '/rest-api/sms-message/?recipient_number=1&recipient_number=2', '/rest-api/contact/?phonebook_id=1&phonebook_id=2']) {
      const res = await call(t.app, alice.auth, 'GET', url);
      assert.equal(res.statusCode, 200, `${url}: ${res.body}`);
    }
  });

  test('a CDR date filter outside the accepted range is a 400, not a 500', async () => {
    for (const value of ['0000-01-01', '0001-01-01 00:00:00', '1969-12-31T23:59:59Z']) {
      for (const format of ['', '&format=csv']) {
        const res = await call(t.app, alice.auth, 'GET', `/rest-api/cdr/?starting_date__gte=${encodeURIComponent(value)}${format}`);
        assert.equal(res.statusCode, 400, `${value}${format}: ${res.body}`);
        assert.match(res.data.starting_date__gte[0], /1970/);
      }
    }
  });
});
