/**
 * npm run bench:phone-keys — migration 0023 (one identity per phone number, issue 16 item 1) on
 * a large database: BENCH_KEY_ROWS (default 10,000,000) contacts in one phonebook and as many
 * subscribers of a campaign dialing it, written in mixed forms (`+1 203-555-0101`,
 * `(203) 555-0101`, `2035550101`), on PostgreSQL at migration 0022; then the migration that gives
 * every row its key is applied and timed. Baseline, in the same run: copying the same two tables
 * once (CREATE TABLE … AS) and building the same two indexes — what writing the rows and their
 * index costs at the least. Target: set-based, of the order of the baseline ("fast on 10M rows").
 */
import pg from 'pg';
import { applyMigrations, createSchemaMigrations, migrationFiles } from '../src/db/migrate.ts';
import { benchDatabase, fmt } from './support.ts';

const rows = Number(process.env.BENCH_KEY_ROWS ?? 10_000_000);
const KEYS = '0023_phone_keys.sql';

async function timed<T>(what: () => Promise<T>): Promise<[T, number]> {
  const started = Date.now();
  const result = await what();
  return [result, (Date.now() - started) / 1000];
}

async function main(): Promise<void> {
  const files = migrationFiles();
  const keys = files.find((f) => f.startsWith('0023_'));
  if (keys !== KEYS) throw new Error(`expected ${KEYS} among the migrations, found ${keys}`);
  console.log(`bench:phone-keys — PostgreSQL, ${fmt(rows)} contacts and ${fmt(rows)} subscribers; node ${process.version}`);
  const database = await benchDatabase('keys');
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  const exec = async (text: string) => void (await client.query(text));
  try {
    await exec(createSchemaMigrations);
    await applyMigrations(
      files.filter((f) => f < KEYS),
      exec,
    );
    const [, load] = await timed(async () => {
      await exec(`insert into users (username, password_hash) values ('keys', 'x')`);
      await exec(`insert into phonebooks (name, user_id) select 'keys', id from users where username = 'keys'`);
      // Three forms, as operators' lists mix them: international with spacing, national with punctuation, digits.
      await exec(`insert into contacts (phonebook_id, contact, full_name)
        select p.id, case g % 3 when 0 then '+1 203-' || lpad((g % 10000000)::text, 7, '0')
                                when 1 then '(203) ' || lpad((g % 10000000)::text, 7, '0')
                                else '203' || lpad((g % 10000000)::text, 7, '0') end, 'Contact ' || g
        from phonebooks p, generate_series(1, ${rows}) g where p.name = 'keys'`);
      await exec(`insert into campaigns (campaign_code, name, user_id) select 'KEYS', 'keys', id from users where username = 'keys'`);
      await exec(`insert into subscribers (campaign_id, contact_id, duplicate_contact)
        select k.id, c.id, c.contact from campaigns k, contacts c where k.name = 'keys'`);
      await exec('analyze');
      await exec('checkpoint');
    });
    console.log(`loaded in ${fmt(load, 1)} s`);

    const [, baseline] = await timed(async () => {
      await exec('create table base_contacts as select * from contacts');
      await exec('create table base_subscribers as select * from subscribers');
      await exec('create index on base_contacts (phonebook_id, contact)');
      await exec('create index on base_subscribers (campaign_id, duplicate_contact)');
    });
    await exec('drop table base_contacts, base_subscribers');
    await exec('checkpoint');

    const [, migration] = await timed(() => applyMigrations([KEYS], exec));
    const { rows: check } = await client.query<{ n: string; keyed: string }>(
      `select count(*) as n, count(*) filter (where phone_key = regexp_replace(contact, '[^0-9]', '', 'g')) as keyed from contacts`,
    );
    if (Number(check[0].n) !== rows || check[0].keyed !== check[0].n) throw new Error(`keys missing: ${JSON.stringify(check[0])}`);
    console.log(
      `migration ${KEYS}: ${fmt(migration, 1)} s for ${fmt(2 * rows)} rows (${fmt((2 * rows) / migration)} rows/s); ` +
        `baseline, the two tables copied once and indexed: ${fmt(baseline, 1)} s; ratio ${fmt(migration / baseline, 2)}`,
    );
  } finally {
    await client.end();
    await database.drop();
  }
}

await main();
