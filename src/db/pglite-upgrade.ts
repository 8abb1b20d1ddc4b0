/**
 * Upgrades an embedded database made by PGlite 0.3 (PostgreSQL 17) to the PGlite this build runs
 * (0.5, PostgreSQL 18), which cannot open it ("PGlite failed to initialize properly"): PostgreSQL
 * data directories are tied to their major version, and PGlite has no pg_upgrade.
 *
 * The old directory is read by the old PGlite, a second copy of @electric-sql/pglite installed
 * under the alias `pglite-pg17` (package.json): nothing else can read those files, and without it
 * an operator's users, contacts, campaigns, CDRs and payments would be lost at the upgrade. It is
 * loaded only when an upgrade runs.
 *
 * The new directory is built beside the old one (DATA_DIR/pglite.upgrading): the migrations the
 * old database had, then every table's rows by COPY in chunks, then the sequences, then
 * schema_migrations. Row counts are compared; only then is it renamed to pglite.upgraded (the
 * mark that it is complete), the old directory to pglite-pg17-backup-<time>, and the new one to
 * pglite. A crash before that mark leaves the old directory as it was (the partial copy is
 * removed at the next start); a crash after it is finished at the next start.
 */
import fs from 'node:fs';
import path from 'node:path';
import { PGLITE_SETTINGS } from './database.ts';
import { createPgliteDirectory, PgliteThread } from './pglite-thread.ts';
import { applyMigrations, createSchemaMigrations, migrationFiles } from './migrate.ts';

/**
 * PG_VERSION of the directories this PGlite makes, and the one version it can upgrade from.
 * Hard-coded rather than read from a fresh directory (that costs a second PGlite start): change
 * both with the @electric-sql/pglite and pglite-pg17 versions in package.json.
 */
const CURRENT_MAJOR = 18;
const UPGRADABLE_MAJOR = 17;

/**
 * Rows per COPY chunk: each chunk is one blob in memory, read from the old PGlite and written
 * into the new. 10,000 rows of the widest tables (cdrs, contacts with variables) are a few MB.
 */
const COPY_ROWS = 10_000;

export interface UpgradeLog {
  info?(msg: string): void;
  warn(msg: string): void;
}

/** The subset of PGlite (either version) the copy uses. */
interface Session {
  query<T>(text: string, params?: unknown[], options?: { blob?: Blob }): Promise<{ rows: T[]; blob?: Blob }>;
  exec(text: string): Promise<unknown>;
  close(): Promise<void>;
}

/**
 * Called with the lock on `dataDir` held, before PGlite opens DATA_DIR/pglite: upgrades it when
 * it was made by PostgreSQL 17, and does nothing when it is current or absent.
 */
export async function upgradeOldPglite(dataDir: string, log?: UpgradeLog): Promise<void> {
  const live = path.join(dataDir, 'pglite');
  const upgraded = path.join(dataDir, 'pglite.upgraded');
  if (fs.existsSync(upgraded)) {
    log?.warn(`finishing an upgrade of the embedded database in ${dataDir} that was stopped while swapping directories`);
    swap(dataDir, live, upgraded, log);
    return;
  }
  const major = readMajor(live);
  if (major === undefined || major === CURRENT_MAJOR) return;
  if (major !== UPGRADABLE_MAJOR) {
    throw new Error(
      `the embedded database in ${live} was made by PostgreSQL ${major}; this version reads ${CURRENT_MAJOR} and ` +
        `upgrades ${UPGRADABLE_MAJOR} only: run the version of campaign-dialer that made it, or export it with pg_dump`,
    );
  }
  const building = path.join(dataDir, 'pglite.upgrading');
  fs.rmSync(building, { recursive: true, force: true }); // a partial copy from an interrupted start
  const started = Date.now();
  log?.info?.(`upgrading the embedded database in ${live} from PostgreSQL 17 (PGlite 0.3) to 18 (PGlite 0.5)…`);
  let counts: Map<string, number>;
  try {
    checkFreeSpace(dataDir, live);
    counts = await copyDatabase(live, building, log);
  } catch (err) {
    fs.rmSync(building, { recursive: true, force: true });
    throw new Error(
      `could not upgrade the embedded database in ${live} from PostgreSQL 17 to 18; it is left as it was ` +
        `(the previous version of campaign-dialer still opens it): ${(err as Error).message}`,
    );
  }
  fs.renameSync(building, upgraded);
  const backup = swap(dataDir, live, upgraded, log);
  const rows = [...counts.values()].reduce((a, b) => a + b, 0);
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  log?.info?.(
    `upgraded the embedded database in ${live} from PostgreSQL 17 to 18: ${counts.size} tables, ${rows} rows, ` +
      `done in ${seconds} s; the old directory is kept at ${backup} (delete it once satisfied)`,
  );
}

/** PG_VERSION's major number, or undefined when there is no database there yet. */
function readMajor(dir: string): number | undefined {
  try {
    return Number(fs.readFileSync(path.join(dir, 'PG_VERSION'), 'utf8').trim());
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The copy takes about as much disk as the old directory (measured: 165 MB for 159 MB). */
function checkFreeSpace(dataDir: string, live: string): void {
  const needed = Math.ceil(directorySize(live) * 1.2);
  const { bavail, bsize } = fs.statfsSync(dataDir);
  const mb = (bytes: number) => Math.ceil(bytes / 1e6);
  if (bavail * bsize < needed) {
    throw new Error(`the copy needs about ${mb(needed)} MB free beside it, and ${mb(bavail * bsize)} MB are: free some space and start again`);
  }
}

function directorySize(dir: string): number {
  return fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
    const full = path.join(dir, entry.name);
    return sum + (entry.isDirectory() ? directorySize(full) : entry.isFile() ? fs.statSync(full).size : 0);
  }, 0);
}

/** Moves the old directory (if still there) aside and the complete new one in; returns the backup's path. */
function swap(dataDir: string, live: string, upgraded: string, log?: UpgradeLog): string {
  const backup = path.join(dataDir, `pglite-pg${UPGRADABLE_MAJOR}-backup-${new Date().toISOString().replace(/[:.]/g, '-')}`);
  if (fs.existsSync(live)) fs.renameSync(live, backup);
  else log?.warn(`the old directory was already moved aside (look for ${path.join(dataDir, 'pglite-pg17-backup-*')})`);
  fs.renameSync(upgraded, live);
  return backup;
}

/** Copies everything from the old directory into a new one at `target`; returns rows per table. */
async function copyDatabase(source: string, target: string, log?: UpgradeLog): Promise<Map<string, number>> {
  // Making a new directory (initdb) is PGlite 0.5's hungriest moment (about 800 MB resident):
  // done in a thread ended before the old PGlite (about 400 MB) opens, the two do not add up.
  await createPgliteDirectory(target, PGLITE_SETTINGS);
  const { PGlite: OldPGlite } = await import('pglite-pg17');
  const old = (await OldPGlite.create(source)) as unknown as Session;
  let fresh: Session | undefined;
  try {
    const thread = new PgliteThread(target, PGLITE_SETTINGS);
    fresh = thread;
    await thread.waitReady;
    await recreateSchema(old, fresh);
    // Replica mode: foreign keys and triggers (users_notify, the delete cascades) do not fire,
    // so tables load in any order and nothing reacts to rows that are only being moved.
    await fresh.exec('set session_replication_role = replica');
    const counts = new Map<string, number>();
    for (const table of await tables(old)) {
      const copied = await copyTable(old, fresh, table);
      counts.set(table, await countRows(old, table));
      if (copied) log?.info?.(`upgrade: copied ${table} (${copied} rows)`);
    }
    await copySequences(old, fresh);
    await fresh.exec('delete from schema_migrations');
    await copyChunk(old, fresh, 'schema_migrations', 'name, applied_at', 'true', 'name');
    await fresh.exec('set session_replication_role = origin');
    await verifyCounts(fresh, counts);
    // Closed here, not in finally: a close that fails (files not written) must stop the swap.
    await fresh.close();
    fresh = undefined;
    return counts;
  } finally {
    await fresh?.close().catch(() => {});
    await old.close().catch(() => {});
  }
}

/** Applies to the new database exactly the migrations the old one had. */
async function recreateSchema(old: Session, fresh: Session): Promise<void> {
  const done = new Set((await old.query<{ name: string }>('select name from schema_migrations')).rows.map((r) => r.name));
  const files = migrationFiles();
  const unknown = [...done].filter((name) => !files.includes(name));
  if (unknown.length) throw new Error(`it has migrations this version does not know (${unknown.join(', ')}): it was made by a newer version`);
  await fresh.exec(createSchemaMigrations);
  await applyMigrations(files.filter((name) => done.has(name)), (text) => fresh.exec(text).then(() => {}));
}

/** The tables of the public schema, schema_migrations apart (it is copied last). */
async function tables(old: Session): Promise<string[]> {
  const rows = await old.query<{ name: string }>(
    "select tablename as name from pg_tables where schemaname = 'public' and tablename <> 'schema_migrations' order by tablename",
  );
  return rows.rows.map((r) => r.name);
}

/** Copies one table in chunks of COPY_ROWS rows, walking its primary key; returns its rows. */
async function copyTable(old: Session, fresh: Session, table: string): Promise<number> {
  const name = quoteIdent(table);
  const columns = await old.query<{ name: string }>(
    // Generated columns (dnc_contacts.digits) are computed again by the new database.
    `select attname as name from pg_attribute where attrelid = $1::regclass and attnum > 0
       and not attisdropped and attgenerated = '' order by attnum`,
    [`public.${name}`],
  );
  const columnList = columns.rows.map((r) => quoteIdent(r.name)).join(', ');
  const key = await old.query<{ name: string }>(
    `select a.attname as name from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
      where i.indrelid = $1::regclass and i.indisprimary order by array_position(i.indkey::int2[], a.attnum)`,
    [`public.${name}`],
  );
  const keyList = key.rows.map((r) => quoteIdent(r.name)).join(', ');
  // A table without a primary key (none today) is copied in one COPY.
  if (!keyList) return copyChunk(old, fresh, name, columnList, 'true', '1');
  let copied = 0;
  let after: string | undefined;
  for (;;) {
    const from = after ? `(${keyList}) > ${after}` : 'true';
    // The last key of this chunk, as SQL literals (COPY takes no parameters).
    const last = await old.query<{ key: string }>(
      `select '(' || concat_ws(', ', ${key.rows.map((r) => `quote_literal(${quoteIdent(r.name)})`).join(', ')}) || ')' as key
         from ${name} where ${from} order by ${keyList} offset ${COPY_ROWS - 1} limit 1`,
    );
    const upTo = last.rows[0]?.key;
    copied += await copyChunk(old, fresh, name, columnList, upTo ? `${from} and (${keyList}) <= ${upTo}` : from, keyList);
    if (!upTo) return copied;
    after = upTo;
  }
}

/** One COPY out of the old database and into the new; returns the rows copied. */
async function copyChunk(old: Session, fresh: Session, table: string, columns: string, where: string, order: string): Promise<number> {
  const out = await old.query(`copy (select ${columns} from ${table} where ${where} order by ${order}) to '/dev/blob'`);
  if (!out.blob || out.blob.size === 0) return 0;
  const result = (await fresh.query(`copy ${table} (${columns}) from '/dev/blob'`, [], { blob: out.blob })) as { affectedRows?: number };
  return result.affectedRows ?? 0;
}

/** Sets every sequence to where it was, so that new rows get the ids that come next. */
async function copySequences(old: Session, fresh: Session): Promise<void> {
  const sequences = await old.query<{ name: string; last: string | null }>(
    "select format('%I.%I', schemaname, sequencename) as name, last_value::text as last from pg_sequences where schemaname = 'public'",
  );
  for (const { name, last } of sequences.rows) {
    // A sequence never used has no last value, as in the fresh database.
    if (last !== null) await fresh.query('select setval($1::regclass, $2::bigint, true)', [name, last]);
  }
}

/** Every table of the new database holds as many rows as the old one did. */
async function verifyCounts(fresh: Session, counts: Map<string, number>): Promise<void> {
  for (const [table, expected] of counts) {
    const found = await countRows(fresh, table);
    if (found !== expected) throw new Error(`table ${table} has ${found} rows after the copy, ${expected} before`);
  }
}

async function countRows(session: Session, table: string): Promise<number> {
  const [{ n }] = (await session.query<{ n: string }>(`select count(*)::text as n from ${quoteIdent(table)}`)).rows;
  return Number(n);
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
