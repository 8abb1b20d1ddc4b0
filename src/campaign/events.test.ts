import assert from 'node:assert/strict';
import test from 'node:test';
import fc from 'fast-check';
import { type EventRow, eventArray, eventJson, eventMessages, isoTime, renderRows } from './events.ts';

const row = (data: unknown): EventRow => ({
  id: 7,
  txid: 42,
  type: 'call.completed',
  user_id: 1,
  campaign_id: 3,
  data: JSON.stringify(data),
  created: '2026-11-27T08:00:00.000Z',
});

test('eventJson makes every link value absolute, at any depth, and nothing else', () => {
  const data = {
    campaign: '/rest-api/campaigns/3/',
    results: [{ section: '/rest-api/section-template/9/', response: 'yes' }],
    note: 'he said "/rest-api/campaigns/3/" twice \\',
    '/rest-api/a-key/': '/rest-api/value/',
    plain: 'rest-api/not-a-link',
    nested: { list: ['/rest-api/x/', 1, null, true] },
  };
  const event = JSON.parse(eventJson(row(data), 'http://h:8000'));
  assert.deepEqual(event, {
    id: 'evt_00000000016000000000007',
    type: 'call.completed',
    created: '2026-11-27T08:00:00.000Z',
    data: {
      campaign: 'http://h:8000/rest-api/campaigns/3/',
      results: [{ section: 'http://h:8000/rest-api/section-template/9/', response: 'yes' }],
      note: 'he said "/rest-api/campaigns/3/" twice \\',
      '/rest-api/a-key/': 'http://h:8000/rest-api/value/',
      plain: 'rest-api/not-a-link',
      nested: { list: ['http://h:8000/rest-api/x/', 1, null, true] },
    },
  });
});

test('eventJson reads the text PostgreSQL keeps for json (spaces around the colons)', () => {
  const stored = { ...row({}), data: '{"campaign" : "/rest-api/campaigns/3/", "n" : 1}' };
  assert.deepEqual(JSON.parse(eventJson(stored, 'https://dialer.example')).data, { campaign: 'https://dialer.example/rest-api/campaigns/3/', n: 1 });
});

/** What eventJson promises for `value`: every string value (not key) that starts with /rest-api/ gets `base` in front. */
function absolute(value: unknown, base: string): unknown {
  if (typeof value === 'string') return value.startsWith('/rest-api/') ? base + value : value;
  if (Array.isArray(value)) return value.map((v) => absolute(v, base));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, absolute(v, base)]));
  return value;
}

/** `value` as json_build_object and json_agg write it: a space on each side of every colon, after every comma. */
function builtJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(builtJson).join(', ')}]`;
  if (value && typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)} : ${builtJson(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}

test('eventJson, for any payload: links made absolute, keys and every other string unchanged, whatever the spacing', () => {
  // Strings built from the pieces that matter: the link prefix, quotes, backslashes, colons.
  const piece = fc.constantFrom('/rest-api/', '/rest-api/campaigns/3/', '"', '\\', '\\"', ':', ' ', 'a', 'é', '名', '😀', '\n', '"/rest-api/x/"');
  const text = fc.array(piece, { maxLength: 6 }).map((parts) => parts.join(''));
  const payload = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.constant(null), fc.boolean(), tie('list'), tie('object')),
    list: fc.array(tie('value'), { maxLength: 4 }),
    object: fc.dictionary(text, tie('value'), { maxKeys: 4 }),
  })).object;
  const base = fc.constantFrom('http://h:8000', 'https://dialer.example', 'http://x/"q"\\');
  fc.assert(
    fc.property(payload, base, fc.boolean(), (data, at, spaced) => {
      // PostgreSQL's json text keeps the spacing it was given (json_build_object writes `"key" : value`).
      const stored = spaced ? builtJson(data) : JSON.stringify(data);
      const event = JSON.parse(eventJson({ ...row({}), data: stored }, at)) as { data: unknown };
      assert.deepEqual(event.data, absolute(data, at));
    }),
    { numRuns: 2000 },
  );
});

test('rows rendered together (a window of the log): each row its own JSON, its own links, for any base asked in any order', () => {
  const piece = fc.constantFrom('/rest-api/', '/rest-api/campaigns/3/', '"', '\\', ':', 'é', '😀', '"/rest-api/x/"');
  const text = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
  const payload = fc.dictionary(text, fc.oneof(text, fc.integer(), fc.array(text, { maxLength: 3 })), { maxKeys: 4 });
  const base = fc.constantFrom('http://h:8000', 'https://dialer.example', 'http://x/"q"\\');
  fc.assert(
    fc.property(fc.array(payload, { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.nat(7), base), { minLength: 1, maxLength: 12 }), (payloads, asks) => {
      const rows = payloads.map((data, i) => ({ ...row({}), id: 100 + i, type: i % 2 ? 'subscriber.final' : 'call.completed', data: JSON.stringify(data) }));
      renderRows(rows);
      assert.ok(rows.every((r) => r.rendering === rows[0].rendering && r.data === ''), 'one rendering for the window, the stored text let go');
      for (const [n, at] of asks) {
        const i = n % rows.length;
        const event = JSON.parse(eventJson(rows[i], at)) as { id: string; type: string; created: string; data: unknown };
        assert.deepEqual(event, { id: `evt_${(42).toString(36).padStart(11, '0')}${(100 + i).toString(36).padStart(12, '0')}`, type: rows[i].type, created: '2026-11-27T08:00:00.000Z', data: absolute(payloads[i], at) });
      }
    }),
    { numRuns: 1000 },
  );
});

test('eventArray and eventMessages: any rows of any windows, in any order, repeated or not rendered yet, each its own event once, in that order', () => {
  const piece = fc.constantFrom('/rest-api/', '/rest-api/campaigns/3/', '"', '\\', ':', 'é', '😀', '\n');
  const text = fc.array(piece, { maxLength: 4 }).map((parts) => parts.join(''));
  const payload = fc.dictionary(text, fc.oneof(text, fc.integer()), { maxKeys: 3 });
  const window = fc.array(payload, { minLength: 1, maxLength: 6 });
  const base = fc.constantFrom('http://h:8000', 'https://dialer.example', 'http://x/"q"\\');
  fc.assert(
    fc.property(fc.array(window, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 12 }), fc.array(base, { minLength: 1, maxLength: 4 }), (windows, picks, bases) => {
      let id = 100;
      const made = windows.map((payloads) => payloads.map((data, i) => ({ row: { ...row({}), id: id++, type: i % 2 ? 'subscriber.final' : 'call.completed', data: JSON.stringify(data) }, data })));
      // Every window but the last rendered as the tail renders them; the last one's rows are rendered when first sent.
      made.slice(0, -1).forEach((rows) => renderRows(rows.map((r) => r.row)));
      const all = made.flat();
      const picked = picks.map((n) => all[n % all.length]);
      const rows = picked.map((p) => p.row);
      for (const at of bases) {
        const expected = picked.map((p) => ({ id: `evt_${(42).toString(36).padStart(11, '0')}${p.row.id.toString(36).padStart(12, '0')}`, type: p.row.type, created: '2026-11-27T08:00:00.000Z', data: absolute(p.data, at) }));
        assert.deepEqual(JSON.parse(eventArray(rows, at).toString('utf8')), expected, 'the array');
        const messages = eventMessages(rows, at).toString('utf8');
        const sent = messages === '' ? [] : messages.replace(/\n\n$/, '').split('\n\n').map((message) => {
          const [idLine, typeLine, dataLine, ...more] = message.split('\n');
          assert.deepEqual(more, [], 'three lines a message');
          assert.match(idLine, /^id: /);
          assert.match(typeLine, /^event: /);
          assert.match(dataLine, /^data: /);
          return { id: idLine.slice(4), type: typeLine.slice(7), event: JSON.parse(dataLine.slice(6)) as { id: string; type: string } };
        });
        assert.deepEqual(sent, expected.map((event) => ({ id: event.id, type: event.type, event })), 'the stream');
      }
    }),
    { numRuns: 1000 },
  );
});

test('isoTime writes what Date#toISOString writes, for PostgreSQL\'s text in a UTC session and for other forms', () => {
  const instant = fc.date({ min: new Date('1000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59Z'), noInvalidDate: true });
  fc.assert(
    fc.property(instant, fc.integer({ min: 0, max: 999 }), fc.integer({ min: 0, max: 6 }), (at, micros, digits) => {
      // As PostgreSQL prints it: no fraction, or up to six digits (trailing zeros dropped).
      const iso = at.toISOString();
      const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.slice(0, digits).replace(/0+$/, '');
      const pg = `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
      assert.equal(isoTime(pg), new Date(pg).toISOString());
      assert.equal(isoTime(iso), iso);
      assert.equal(isoTime(at), iso);
    }),
    { numRuns: 2000 },
  );
  assert.equal(isoTime('2026-11-27 23:51:32.683972+01'), '2026-11-27T22:51:32.683Z', 'another zone: through Date');
});
