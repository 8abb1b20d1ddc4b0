/**
 * The upgrade of an embedded database made by PGlite 0.3 (PostgreSQL 17) when the server opens it
 * with PGlite 0.5 (PostgreSQL 18). PGlite only, whatever TEST_DATABASE_URL says: it is about the
 * embedded database's files. The old directory is made by the old PGlite itself, with this
 * repository's migration files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { PGlite as OldPGlite } from 'pglite-pg17';
import { type Database, openDatabase } from '../src/db/database.ts';
import { applyMigrations, createSchemaMigrations, migrate, migrationFiles } from '../src/db/migrate.ts';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-pglite-upgrade-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

const CONTACTS = 25_000; // more than one chunk of the copy (10,000 rows)

/** A DATA_DIR whose pglite directory is made by PGlite 0.3, migrated, holding `extra` SQL's rows. */
async function oldDataDir(name: string, extra = ''): Promise<string> {
  const dataDir = path.join(root, name);
  fs.mkdirSync(dataDir);
  const old = await OldPGlite.create(path.join(dataDir, 'pglite'));
  await old.exec(createSchemaMigrations);
  await applyMigrations(migrationFiles(), (text) => old.exec(text).then(() => {}));
  await old.exec(`
    insert into users (username, password_hash, is_admin) values ('admin', 'hash-a', true), ('alice', 'hash-b', false);
    insert into payments (user_id, amount, description) values (2, 12.5, 'first top-up');
    insert into phonebooks (name, user_id) values ('customers', 2);
    insert into contacts (phonebook_id, contact, phone_key, full_name, additional_vars)
      select 1, '3360000' || g, '3360000' || g, 'Contact ' || g, jsonb_build_object('n', g) from generate_series(1, ${CONTACTS}) g;
    delete from contacts where id = ${CONTACTS}; -- the sequence is ahead of max(id)
    insert into campaigns (campaign_code, name, user_id) values ('SPRING', 'Spring', 2);
    insert into campaign_phonebooks (campaign_id, phonebook_id) values (1, 1);
    insert into dnc_lists (name, user_id) values ('do not call', 2);
    insert into dnc_contacts (dnc_id, phone_number, phone_key) values (1, '+33 6 12-34', '3361234');
    insert into login_failures (username, address, failures, window_start, expires_at)
      values ('bob', '10.0.0.1', 2, now(), now()), ('bob', '10.0.0.2', 1, now(), now());
    ${extra}
  `);
  await old.close();
  return dataDir;
}

function collect(): { lines: string[]; log: { info(m: string): void; warn(m: string): void } } {
  const lines: string[] = [];
  return { lines, log: { info: (m) => lines.push(m), warn: (m) => lines.push(`WARN ${m}`) } };
}

async function rows<T>(database: Database, text: string): Promise<T[]> {
  return (await (database.pglite as NonNullable<Database['pglite']>).query<T>(text)).rows;
}

const pgVersion = (dir: string) => fs.readFileSync(path.join(dir, 'PG_VERSION'), 'utf8').trim();
const backups = (dataDir: string) => fs.readdirSync(dataDir).filter((n) => n.startsWith('pglite-pg17-backup-'));

test('PGlite only: openDatabase upgrades a PostgreSQL 17 data directory to 18 once, keeping rows, sequences and a backup', async () => {
  const dataDir = await oldDataDir('upgrade');
  const old = await OldPGlite.create(path.join(dataDir, 'pglite'));
  const oldMigrations = (await old.query<{ name: string; at: string }>('select name, applied_at::text as at from schema_migrations order by name')).rows;
  await old.close();

  const first = collect();
  let database = await openDatabase({ dataDir, log: first.log });
  try {
    assert.match(first.lines.join('\n'), /upgraded the embedded database in .* from PostgreSQL 17 to 18: \d+ tables, \d+ rows, done in/);
    assert.equal(pgVersion(path.join(dataDir, 'pglite')), '18');
    assert.equal(backups(dataDir).length, 1, fs.readdirSync(dataDir).join(', '));
    assert.equal(pgVersion(path.join(dataDir, backups(dataDir)[0])), '17');
    assert.ok(!fs.existsSync(path.join(dataDir, 'pglite.upgrading')));
    assert.deepEqual(await migrate(database), [], 'the upgraded database has every migration');

    assert.deepEqual(await rows(database, 'select id, username, password_hash, is_admin, is_active from users order by id'), [
      { id: 1, username: 'admin', password_hash: 'hash-a', is_admin: true, is_active: true },
      { id: 2, username: 'alice', password_hash: 'hash-b', is_admin: false, is_active: true },
    ]);
    assert.deepEqual(await rows(database, 'select user_id, amount::text, description from payments'), [
      { user_id: 2, amount: '12.50000', description: 'first top-up' },
    ]);
    assert.deepEqual(await rows(database, 'select count(*)::int as n, max(id) as max from contacts'), [{ n: CONTACTS - 1, max: CONTACTS - 1 }]);
    assert.deepEqual(await rows(database, 'select contact, full_name, additional_vars from contacts where id = 12345'), [
      { contact: '336000012345', full_name: 'Contact 12345', additional_vars: { n: 12345 } },
    ]);
    assert.deepEqual(await rows(database, 'select campaign_id, phonebook_id from campaign_phonebooks'), [{ campaign_id: 1, phonebook_id: 1 }]);
    assert.deepEqual(await rows(database, 'select phone_number, phone_key from dnc_contacts'), [{ phone_number: '+33 6 12-34', phone_key: '3361234' }]);
    assert.deepEqual(await rows(database, 'select address from login_failures order by address'), [{ address: '10.0.0.1' }, { address: '10.0.0.2' }]);
    assert.deepEqual(await rows(database, 'select name, applied_at::text as at from schema_migrations order by name'), oldMigrations);
    // Triggers are on again (the copy ran them off): users_notify_changed fires for new rows.
    assert.deepEqual(await rows(database, "select tgenabled from pg_trigger where tgname = 'users_notify_changed'"), [{ tgenabled: 'O' }]);

    // Sequences continue where they were: the deleted last contact's id is not given again.
    assert.deepEqual(await rows(database, "insert into contacts (phonebook_id, contact, phone_key) values (1, '999', '999') returning id"), [{ id: CONTACTS + 1 }]);
    assert.deepEqual(await rows(database, "insert into users (username, password_hash) values ('carol', 'h') returning id"), [{ id: 3 }]);
    assert.deepEqual(await rows(database, "insert into payments (user_id, amount) values (3, 1) returning id"), [{ id: 2 }]);
  } finally {
    await database.close();
  }

  const second = collect();
  database = await openDatabase({ dataDir, log: second.log });
  try {
    assert.deepEqual(second.lines, [], 'a second open does not upgrade again');
    assert.equal(backups(dataDir).length, 1);
    assert.deepEqual(await rows(database, "select id from contacts where contact = '999'"), [{ id: CONTACTS + 1 }]);
    assert.deepEqual(await rows(database, 'select count(*)::int as n from users'), [{ n: 3 }]);
  } finally {
    await database.close();
  }

  // A crash after the copy was marked complete (pglite.upgraded) but before the swap: the next
  // open finishes the swap instead of opening, or upgrading again, the old directory.
  const [backup] = backups(dataDir);
  fs.renameSync(path.join(dataDir, 'pglite'), path.join(dataDir, 'pglite.upgraded'));
  fs.renameSync(path.join(dataDir, backup), path.join(dataDir, 'pglite'));
  const third = collect();
  database = await openDatabase({ dataDir, log: third.log });
  try {
    assert.match(third.lines.join('\n'), /finishing an upgrade/);
    assert.equal(pgVersion(path.join(dataDir, 'pglite')), '18');
    assert.equal(backups(dataDir).length, 1, fs.readdirSync(dataDir).join(', '));
    assert.ok(!fs.existsSync(path.join(dataDir, 'pglite.upgraded')));
    assert.deepEqual(await rows(database, 'select count(*)::int as n from users'), [{ n: 3 }]);
  } finally {
    await database.close();
  }
});

test('PGlite only: an upgrade that fails mid-copy leaves the PostgreSQL 17 directory as it was and says why', async () => {
  // A column the migrations do not make (added by hand on the old database): the copy of
  // contacts, after the tables before it in name order, is refused by PostgreSQL 18.
  const dataDir = await oldDataDir('failure', "alter table contacts add column note text default 'by hand';");
  const log = collect();
  await assert.rejects(openDatabase({ dataDir, log: log.log }), (err: Error) => {
    assert.match(err.message, /could not upgrade the embedded database in .* it is left as it was/);
    assert.match(err.message, /note/);
    return true;
  });
  assert.match(log.lines.join('\n'), /upgrade: copied campaigns \(1 rows\)/, 'it failed after copying some tables');
  assert.equal(pgVersion(path.join(dataDir, 'pglite')), '17');
  assert.deepEqual(
    fs.readdirSync(dataDir).sort(),
    ['pglite'],
    'no partial copy, no backup, and the lock is released',
  );

  const old = await OldPGlite.create(path.join(dataDir, 'pglite'));
  try {
    assert.deepEqual((await old.query('select count(*)::int as n, min(note) as note from contacts')).rows, [{ n: CONTACTS - 1, note: 'by hand' }]);
    assert.deepEqual((await old.query('select username from users order by id')).rows, [{ username: 'admin' }, { username: 'alice' }]);
  } finally {
    await old.close();
  }
});

test('PGlite only: a PostgreSQL 17 directory of an older version gets its migrations, then migrate() adds the newer ones', async () => {
  const dataDir = path.join(root, 'older');
  fs.mkdirSync(dataDir);
  const files = migrationFiles();
  const older = files.slice(0, -3);
  const old = await OldPGlite.create(path.join(dataDir, 'pglite'));
  await old.exec(createSchemaMigrations);
  await applyMigrations(older, (text) => old.exec(text).then(() => {}));
  await old.exec("insert into users (username, password_hash) values ('alice', 'h')");
  await old.close();

  const database = await openDatabase({ dataDir });
  try {
    assert.deepEqual((await rows<{ name: string }>(database, 'select name from schema_migrations order by name')).map((r) => r.name), older);
    assert.deepEqual(await migrate(database), files.slice(-3));
    assert.deepEqual(await rows(database, 'select username, is_active from users'), [{ username: 'alice', is_active: true }]);
  } finally {
    await database.close();
  }
});
