/** What CLI commands share: the configured database for one command, where they write, and one-line errors. */
import { AsyncLocalStorage } from 'node:async_hooks';
import path from 'node:path';
import { type Config, loadConfig } from './config.ts';
import { AppError } from './http/errors.ts';
import type { Database } from './db/database.ts';
import { openAndMigrate } from './main.ts';

/** Thrown by commands for a one-line error to the user (printed as `campaign-dialer: <message>`). */
export class CliError extends Error {}

const quiet = { info: () => {}, warn: (m: string) => process.stderr.write(`${m}\n`) };

/**
 * A command that a CLI process handed to the server holding the embedded database (control.ts):
 * it runs in the server against the server's open database, and writes to the CLI's terminal.
 */
export interface ForwardedRun {
  database: Database;
  /** Which database this is, for the "using …" line. */
  where: string;
  /** The CLI's working directory: file names on its command line are relative to it. */
  cwd: string;
  stderrIsTTY: boolean;
  stdout(text: string): void;
  stderr(text: string): void;
}

const forwarded = new AsyncLocalStorage<ForwardedRun>();

/** Runs `work` as the command of a CLI process: withDatabase and the output helpers below serve it. */
export function runForwarded<T>(run: ForwardedRun, work: () => Promise<T>): Promise<T> {
  return forwarded.run(run, work);
}

/** One line on the stdout of the CLI that runs the command (its own, or the one that forwarded it). */
export function print(line: string): void {
  const run = forwarded.getStore();
  if (run) run.stdout(`${line}\n`);
  else process.stdout.write(`${line}\n`);
}

/** Text on the CLI's stderr (a progress bar's `\r` updates included). */
export function printError(text: string): void {
  const run = forwarded.getStore();
  if (run) run.stderr(text);
  else process.stderr.write(text);
}

/** Whether the CLI's stderr is a terminal (a progress bar is drawn only there). */
export function stderrIsTTY(): boolean {
  const run = forwarded.getStore();
  return run ? run.stderrIsTTY : Boolean(process.stderr.isTTY);
}

/** A file named on the command line, resolved against the CLI's working directory. */
export function cliPath(file: string): string {
  return path.resolve(forwarded.getStore()?.cwd ?? process.cwd(), file);
}

/** "the embedded database in /abs/data (server pid 1234)", "PostgreSQL at host:5432/db" … */
export function describeDatabase(config: Config, serverPid?: number): string {
  if (config.databaseUrl) {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL at ${url.host}${url.pathname}`;
  }
  return `the embedded database in ${config.dataDir} (${serverPid ? `server pid ${serverPid}` : 'no server running'})`;
}

/**
 * Runs `work` with the configured database, migrated, and closes it after; in a forwarded
 * command, with the server's database (left open). Either way it says on stderr which database.
 */
export async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const run = forwarded.getStore();
  if (run) {
    run.stderr(`campaign-dialer: using ${run.where}\n`);
    return work(run.database);
  }
  const config = loadConfig();
  const database = await openAndMigrate(config, quiet);
  process.stderr.write(`campaign-dialer: using ${describeDatabase(config)}\n`);
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}

/** Commands that write through a resource's service act as an admin: they hold the database. */
export const cliOperator = { id: 0, username: 'cli', is_admin: true } as const;

/** The value of a JSON option such as `--settings '{"seed": 1}'` (undefined when absent). */
export function jsonOption(flag: string, raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new CliError(`${flag} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Rethrows an API 400 as one line for the user: `invalid <what>: name: …; settings: …`. */
export function oneLineError(what: string, err: unknown): never {
  if (err instanceof AppError && err.statusCode === 400) {
    const fields = Object.entries(err.body).map(([field, problems]) => `${field}: ${([] as unknown[]).concat(problems).join(' ')}`);
    throw new CliError(`invalid ${what}: ${fields.join('; ')}`);
  }
  throw err;
}
