/**
 * BENCH_PG=private: the benchmarks' PostgreSQL is a cluster of their own rather than the machine's
 * service, made with Debian's initdb in a temporary directory, listening on a free loopback port,
 * with settings sized for the rates the benchmarks drive (BENCH_PG_SETTINGS overrides them), and
 * stopped (and its directory removed) when the benchmark's process exits.
 *
 * Why: the machine's service runs Debian's defaults (shared_buffers 128 MB, max_wal_size 1 GB),
 * under which a 1,000,000-call campaign, which writes ~4–5 GB of WAL, checkpoints every few
 * hundred MB and rewrites whole pages after each; an operator dialing at thousands of calls a
 * second would size the database for it. The benchmark prints the settings it ran with.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** What a deployment dialing thousands of calls a second would set (on these 24 GiB machines). */
const SIZED = {
  shared_buffers: '4GB',
  max_wal_size: '16GB',
  checkpoint_timeout: '30min',
  wal_buffers: '64MB',
  // As the machine's service: the benchmarks vacuum and analyze between campaigns, untimed.
  autovacuum: 'off',
};

export interface PrivatePostgres {
  adminUrl: string;
  /** The settings it runs with, as `name=value` pairs. */
  settings: string;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`BENCH_PG=private needs PostgreSQL's server binaries under ${root} (Debian's postgresql package)`);
  return path.join(root, newest, 'bin');
}

/** BENCH_PG_SETTINGS="name=value,…": the sized settings with these replaced or added. */
function settingsOf(env: string | undefined): Record<string, string> {
  const out: Record<string, string> = { ...SIZED };
  for (const pair of (env ?? '').split(',').filter(Boolean)) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`BENCH_PG_SETTINGS: "${pair}" is not name=value`);
    out[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return out;
}

/** A PostgreSQL program's command line, as the postgres user when we are root (initdb refuses root). */
function command(bin: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function run(bin: string, args: string[]): void {
  const r = spawnSync(...command(bin, args), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** Makes and starts the cluster on `port`; it stops when this process exits. */
export function startPrivatePostgres(port: number): PrivatePostgres {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-bench-pg-'));
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const settings = settingsOf(process.env.BENCH_PG_SETTINGS);
  const conf = { ...settings, listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: dir };
  const lines = Object.entries(conf).map(([k, v]) => `${k} = '${v}'`);
  fs.appendFileSync(path.join(data, 'postgresql.conf'), `\n# bench/private-postgres.ts\n${lines.join('\n')}\n`);
  run(path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', 'start']);
  process.on('exit', () => {
    spawnSync(...command(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']));
    fs.rmSync(dir, { recursive: true, force: true });
  });
  // Ctrl-C or a kill: exit, so that the handler above stops the cluster.
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
  return {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    settings: Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', '),
  };
}
