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
import { startPostgresCluster } from '../test/postgres-cluster.ts';

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

/** Makes and starts the cluster on `port` (test/postgres-cluster.ts); it is removed when this process exits. */
export function startPrivatePostgres(port: number): PrivatePostgres {
  const settings = settingsOf(process.env.BENCH_PG_SETTINGS);
  const cluster = startPostgresCluster(port, settings);
  process.on('exit', () => cluster.remove());
  // Ctrl-C or a kill: exit, so that the handler above stops the cluster.
  process.once('SIGINT', () => process.exit(130));
  process.once('SIGTERM', () => process.exit(143));
  return {
    adminUrl: cluster.adminUrl,
    settings: Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(', '),
  };
}
