/** What CLI commands share: the configured database for one command, and one-line errors. */
import { loadConfig } from './config.ts';
import { AppError } from './http/errors.ts';
import type { Database } from './db/database.ts';
import { openAndMigrate } from './main.ts';

/** Thrown by commands for a one-line error to the user (printed as `campaign-dialer: <message>`). */
export class CliError extends Error {}

const quiet = { info: () => {}, warn: (m: string) => process.stderr.write(`${m}\n`) };

/** Runs `work` with the configured database, migrated, and closes it after. */
export async function withDatabase<T>(work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openAndMigrate(loadConfig(), quiet);
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
