/**
 * The embedded database (PGlite) in a worker thread of its own (pglite-worker.js), behind the
 * few PGlite methods this codebase uses: query, exec, transaction, listen, close.
 *
 * Why a thread: PGlite executes each query synchronously on the thread that calls it. On the
 * server's main thread, fifty requests' queries ran back to back without the event loop ever
 * turning, a turn lasted hundreds of milliseconds, and since Node accepts one new connection per
 * turn a client could wait seconds for its first answer (bench:api: POST p99 1.2–2.6 s at 50
 * connections). In a thread, the event loop turns between queries, and HTTP work and database
 * work run on the machine's two cores at once.
 *
 * Queries run one at a time, in the order they are sent; a transaction holds the database from
 * its BEGIN to its end, as PGlite's own transaction() does.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { packageFile } from '../package-files.ts';

export interface Results<T = Record<string, unknown>> {
  rows: T[];
  fields: Array<{ name: string; dataTypeID: number }>;
  affectedRows?: number;
  blob?: Blob;
}

/**
 * The types read as text rather than parsed (dates, intervals and their arrays): what Drizzle's
 * PGlite driver asks for on every query, and so what every query here gets.
 */
const TEXT_TYPES = [1082, 1114, 1184, 1186, 1182, 1115, 1185, 1187, 1231];

export interface QueryOptions {
  rowMode?: 'array' | 'object';
  /** Type parsers: only identity parsers of TEXT_TYPES are accepted (Drizzle's are those). */
  parsers?: Record<number, (value: string, typeId: number) => unknown>;
  /** The input of `COPY … FROM '/dev/blob'`. */
  blob?: Blob;
}

/** What a transaction's callback may do: the same queries, inside the transaction. */
export interface Transaction {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>>;
  exec(sql: string): Promise<Results[]>;
}

/** Which transaction a statement belongs to (none: `{}`), and whether it is its first. */
interface InTransaction {
  tx?: number;
  begin?: true;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
}

export class PgliteThread {
  readonly waitReady: Promise<void>;
  private readonly worker: Worker;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<(payload: string) => void>>();
  private nextId = 1;
  private nextTransaction = 1;
  private closed = false;

  /** `dataDir` undefined: in memory. `settings`: postgresql.conf lines. */
  constructor(dataDir: string | undefined, settings: string[]) {
    this.worker = new Worker(packageFile('src/db/pglite-worker.js'), {
      workerData: { dataDir, settings, textTypes: TEXT_TYPES },
      // The worker is plain JavaScript: it needs none of the main thread's loaders.
      execArgv: [],
      // A small young generation: its default (48 MB) filled under load and stayed (measured on
      // bench:api, the thread's heap at 70–76 MB against 27–53 MB with 4 MB; throughput the same).
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    // Like a socket, the thread keeps the process alive only while a query is under way.
    this.worker.unref();
    this.worker.on('message', (message) => this.receive(message));
    this.worker.on('error', (err) => this.failAll(err));
    this.worker.on('exit', (code) => this.failAll(new Error(`the database thread exited (code ${code})`)));
    this.waitReady = this.call<void>({ op: 'ready' });
  }

  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    return this.runQuery<T>({}, sql, params, options);
  }

  exec(sql: string): Promise<Results[]> {
    return this.runExec({}, sql);
  }

  /** Runs `callback` in a transaction: committed when it returns, rolled back when it throws. */
  async transaction<T>(callback: (tx: Transaction) => Promise<T>): Promise<T> {
    const id = this.nextTransaction++;
    // The transaction begins with its first statement (one round trip less while it holds the
    // database); one that sends none never begins.
    let begun = false;
    const first = () => (begun ? undefined : (begun = true));
    const tx: Transaction = {
      query: (sql, params, options) => this.runQuery({ tx: id, begin: first() }, sql, params, options),
      exec: (sql) => this.runExec({ tx: id, begin: first() }, sql),
    };
    let result: T;
    try {
      result = await callback(tx);
    } catch (err) {
      // The callback's error is the one to report; a transaction that never began has no end.
      if (begun) await this.call({ op: 'end', tx: id, commit: false }).catch(() => {});
      throw err;
    }
    if (begun) await this.call({ op: 'end', tx: id, commit: true });
    return result;
  }

  /** Calls `callback` with each notification on `channel`; resolves once listening. */
  async listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>> {
    let set = this.listeners.get(channel);
    if (!set) {
      set = new Set();
      this.listeners.set(channel, set);
      await this.call({ op: 'listen', channel });
    }
    set.add(callback);
    return async () => {
      set.delete(callback);
      if (set.size > 0 || this.listeners.get(channel) !== set) return;
      this.listeners.delete(channel);
      if (!this.closed) await this.call({ op: 'unlisten', channel });
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      await this.call({ op: 'close' });
    } finally {
      this.closed = true;
      await this.worker.terminate();
    }
  }

  private async runQuery<T>(tx: InTransaction, sql: string, params?: unknown[], options?: QueryOptions): Promise<Results<T>> {
    const sent: Record<string, unknown> = { rowMode: options?.rowMode };
    if (options?.parsers) checkParsers(options.parsers);
    if (options?.blob) sent.blob = await options.blob.arrayBuffer();
    const result = await this.call<Results<T> & { blob?: ArrayBuffer }>(
      { op: 'query', sql, params, options: sent, ...tx },
      sent.blob ? [sent.blob as ArrayBuffer] : [],
    );
    return result.blob ? { ...result, blob: new Blob([result.blob]) } : (result as Results<T>);
  }

  private runExec(tx: InTransaction, sql: string): Promise<Results[]> {
    return this.call<Results[]>({ op: 'exec', sql, ...tx });
  }

  private call<T>(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the embedded database is closed'));
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      if (this.pending.size === 0) this.worker.ref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.worker.postMessage({ ...message, id }, transfer);
    });
  }

  private receive(message: { id?: number; result?: unknown; error?: Record<string, unknown>; notify?: string; payload?: string }): void {
    if (message.notify !== undefined) {
      for (const callback of this.listeners.get(message.notify) ?? []) callback(message.payload ?? '');
      return;
    }
    const pending = this.pending.get(message.id!);
    if (!pending) return;
    this.pending.delete(message.id!);
    if (this.pending.size === 0) this.worker.unref();
    if (message.error) pending.reject(Object.assign(new Error(String(message.error.message)), message.error));
    else pending.resolve(message.result);
  }

  private failAll(err: Error): void {
    this.closed = true;
    for (const pending of this.pending.values()) pending.reject(err);
    this.pending.clear();
  }
}

/**
 * Creates a new database directory (initdb) in a process of its own (pglite-init.js): initdb
 * touches hundreds of MB, which the C allocator keeps from a thread that has ended (measured: a
 * first start left the server 140 MB larger than any later one); a process gives them all back.
 */
export async function createPgliteDirectory(dir: string, settings: string[]): Promise<void> {
  const script = packageFile('src/db/pglite-init.js');
  const child = spawn(process.execPath, [script, dir, JSON.stringify(settings)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`could not create the embedded database in ${dir}: ${stderr.trim() || `exit code ${code}`}`);
}

/** Parser tables already checked: Drizzle hands the same one with each run of a prepared query. */
const checked = new WeakSet<object>();

/** Refuses parsers other than the thread's own (identity on TEXT_TYPES): they cannot cross to it. */
function checkParsers(parsers: NonNullable<QueryOptions['parsers']>): void {
  if (checked.has(parsers)) return;
  for (const [oid, parse] of Object.entries(parsers)) {
    if (!TEXT_TYPES.includes(Number(oid)) || parse('2000-01-01', Number(oid)) !== '2000-01-01') {
      throw new Error(`type parser for OID ${oid}: only text is read across the database thread`);
    }
  }
  checked.add(parsers);
}
