/**
 * One transaction with COPY on either database: on PostgreSQL a pooled client and a
 * pg-copy-streams stream (back-pressure keeps memory flat); on PGlite `COPY … FROM '/dev/blob'`
 * in bounded chunks of rows, since PGlite reads a COPY from one blob.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { PgliteThread, Transaction } from '../../db/pglite-thread.ts';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../../db/database.ts';

/** Takes CSV lines for one COPY. `write` returns a promise only when the caller must wait. */
export interface CopyWriter {
  write(line: string): Promise<void> | undefined;
  end(): Promise<void>;
}

export interface CopySession {
  query(text: string, params?: unknown[]): Promise<{ rows: Record<string, unknown>[]; affectedRows: number }>;
  /** Starts `COPY <into> FROM … WITH (FORMAT csv)`; `into` is `table (columns)`. */
  copyIn(into: string): CopyWriter;
}

/**
 * Rows per COPY on PGlite. Each chunk is held as its blob, then copied by PGlite into its own
 * file system: small chunks keep that garbage small (20,000 rows load as fast as 50,000).
 */
export const PGLITE_COPY_ROWS = 20_000;
const PG_WRITE_BYTES = 64 * 1024;
const PACK_BYTES = 16 * 1024;

/** Runs `work` in one transaction with COPY; anything thrown rolls everything back. */
export async function withCopySession<T>(database: Database, work: (session: CopySession) => Promise<T>): Promise<T> {
  if (database.pool) return withPostgres(database.pool, work);
  if (database.pglite) return withPglite(database.pglite, work);
  throw new Error('the database offers no COPY');
}

async function withPostgres<T>(pool: pg.Pool, work: (session: CopySession) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const open = new Set<Writable>();
  let broken = false;
  try {
    await client.query('begin');
    const result = await work({
      async query(text, params) {
        const r = await client.query(text, params as unknown[]);
        return { rows: r.rows, affectedRows: r.rowCount ?? 0 };
      },
      copyIn: (into) => postgresWriter(client, into, open),
    });
    await client.query('commit');
    return result;
  } catch (err) {
    // A COPY left open holds the connection: cancel it (CopyFail) before rolling back.
    for (const stream of open) await finished(stream.destroy(err as Error)).catch(() => {});
    await client.query('rollback').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    // A client whose COPY was cut may be in any state: drop it rather than reuse it.
    client.release(broken);
  }
}

function postgresWriter(client: pg.PoolClient, into: string, open: Set<Writable>): CopyWriter {
  const stream = client.query(copyFrom(`copy ${into} from stdin with (format csv)`));
  open.add(stream);
  let failure: Error | undefined;
  stream.on('error', (err) => (failure ??= err));
  let parts: string[] = [];
  let size = 0;
  const flush = (): Promise<void> | undefined => {
    const ok = stream.write(parts.join(''));
    parts = [];
    size = 0;
    return ok ? undefined : once(stream, 'drain').then(() => undefined);
  };
  return {
    write(line) {
      if (failure) throw failure;
      parts.push(line);
      size += line.length;
      return size >= PG_WRITE_BYTES ? flush() : undefined;
    },
    async end() {
      if (failure) throw failure;
      if (size > 0) await flush();
      stream.end();
      await finished(stream);
      open.delete(stream);
    },
  };
}

async function withPglite<T>(pglite: PgliteThread, work: (session: CopySession) => Promise<T>): Promise<T> {
  return pglite.transaction(async (tx) =>
    work({
      async query(text, params) {
        const r = await tx.query<Record<string, unknown>>(text, params as unknown[]);
        return { rows: r.rows, affectedRows: r.affectedRows ?? 0 };
      },
      copyIn: (into) => pgliteWriter(tx, into),
    }),
  );
}

/**
 * Lines are packed into Buffers of PACK_BYTES as they come, so that only a few KB of strings
 * live at a time: an array of 50,000 strings would outlive young-generation collections and
 * pile up in the old generation between full collections (hundreds of MB of garbage).
 */
function pgliteWriter(tx: Transaction, into: string): CopyWriter {
  let parts: Buffer[] = [];
  let pending: string[] = [];
  let pendingBytes = 0;
  let rows = 0;
  const pack = () => {
    parts.push(Buffer.from(pending.join('')));
    pending = [];
    pendingBytes = 0;
  };
  const flush = async () => {
    if (pendingBytes > 0) pack();
    const blob = new Blob(parts as Uint8Array<ArrayBuffer>[]);
    parts = [];
    rows = 0;
    await tx.query(`copy ${into} from '/dev/blob' with (format csv)`, [], { blob });
  };
  return {
    write(line) {
      pending.push(line);
      pendingBytes += line.length;
      if (pendingBytes >= PACK_BYTES) pack();
      return ++rows >= PGLITE_COPY_ROWS ? flush() : undefined;
    },
    async end() {
      if (rows > 0) await flush();
    },
  };
}
