/**
 * A PostgreSQL cluster of a process's own: made with Debian's initdb in a temporary directory,
 * listening on a loopback port, stopped and started at will. The machine's service cannot be
 * stopped under a test (every other test uses it); this one can, so a test can restart the
 * database under a running server (test/database-outage.test.ts). The benchmarks' BENCH_PG=private
 * (bench/private-postgres.ts) runs one with settings sized for their rates.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface PostgresCluster {
  /** The `postgres` database, as the superuser (trust auth). */
  adminUrl: string;
  /** Stops it (fast: sessions are ended, as a restart of the service ends them). */
  stop(): void;
  start(): void;
  /** Stops it if running and removes its directory. */
  remove(): void;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error(`a PostgreSQL cluster of our own needs PostgreSQL's server binaries under ${root} (Debian's postgresql package)`);
  return path.join(root, newest, 'bin');
}

/** A PostgreSQL program's command line, as the postgres user when we are root (initdb refuses root). */
function command(bin: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
}

function run(bin: string, args: string[]): void {
  const r = spawnSync(...command(bin, args), { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${path.basename(bin)} ${args[args.length - 1]} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/** Makes the cluster with `settings` (postgresql.conf's, name → value) and starts it on `port`. */
export function startPostgresCluster(port: number, settings: Record<string, string> = {}): PostgresCluster {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-pg-'));
  if (process.getuid?.() === 0) spawnSync('chown', ['postgres:postgres', dir]);
  const data = path.join(dir, 'data');
  run(path.join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const conf = { ...settings, listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: dir };
  const lines = Object.entries(conf).map(([k, v]) => `${k} = '${v}'`);
  fs.appendFileSync(path.join(data, 'postgresql.conf'), `\n# test/postgres-cluster.ts\n${lines.join('\n')}\n`);
  const pgCtl = path.join(bin, 'pg_ctl');
  let running = false;
  const cluster: PostgresCluster = {
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop() {
      run(pgCtl, ['-D', data, '-m', 'fast', '-w', 'stop']);
      running = false;
    },
    start() {
      run(pgCtl, ['-D', data, '-l', path.join(dir, 'log'), '-w', 'start']);
      running = true;
    },
    remove() {
      if (running) spawnSync(...command(pgCtl, ['-D', data, '-m', 'immediate', '-w', 'stop']));
      running = false;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  cluster.start();
  return cluster;
}
