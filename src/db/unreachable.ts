/**
 * Whether an error says the database could not be reached, rather than that the statement was
 * refused: the connection was refused, lost or timed out, or the server is shutting down or
 * starting up. A write that failed so is worth trying again once the database answers; one that
 * failed for what it wrote is not. Drizzle wraps the driver's error (its `cause`): the chain is
 * followed.
 */

/** SQLSTATEs of a database out of reach: class 08 (connection exception) and the server stopping or starting. */
const STATES = new Set(['57P01', '57P02', '57P03']);

/** Node's errors of a connection refused, lost or timed out, and of a host not found for now. */
const SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** pg's own errors for a connection lost or never made (they carry no code). */
const MESSAGES = /^(Connection terminated|Client has encountered a connection error|timeout exceeded when trying to connect|Connection ended)/;

export function databaseUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (code.startsWith('08') || STATES.has(code) || SYSTEM_CODES.has(code))) return true;
    if (MESSAGES.test(e.message)) return true;
  }
  return false;
}

/** The driver's own message under Drizzle's "Failed query: …" (its `cause`), for a log line without the statement. */
export function rootMessage(err: unknown): string {
  let e = err as Error;
  while (e.cause instanceof Error) e = e.cause;
  return e.message;
}

/** The first wait before a write that could not reach the database is tried again; each next one doubles, up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 200;
export const RETRY_MAX_MS = 5000;

/**
 * Runs `write`; while it fails because the database is out of reach, tries it again (after
 * RETRY_FIRST_MS, doubling up to RETRY_MAX_MS) until it goes through, or until `giveUp()` says
 * to stop trying (the process is stopping), when the last error is thrown. `waiting` is told of
 * the first such failure. Any other error is thrown at once. `write` must be safe to run again
 * (a commit whose answer was lost with its connection may have gone through).
 */
export async function untilReached<T>(write: () => Promise<T>, opts: { giveUp: () => boolean; waiting?: (err: Error) => void }): Promise<T> {
  for (let wait = RETRY_FIRST_MS, first = true; ; wait = Math.min(2 * wait, RETRY_MAX_MS), first = false) {
    try {
      return await write();
    } catch (err) {
      if (!databaseUnreachable(err) || opts.giveUp()) throw err;
      if (first) opts.waiting?.(err as Error);
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/**
 * Says an outage once. A loop whose every round fails while the database is out of reach (the
 * engine's passes, the webhook rounds: several a second) logs the first such failure and the
 * first round through after it, not each one. `failed` answers whether the error was such a one
 * (any other is the caller's to log).
 */
export class OutageNotice {
  private out = false;

  constructor(
    private readonly warn: (message: string) => void,
    /** Who speaks ('engine'), what waits meanwhile and what goes on after. */
    private readonly words: { who: string; waiting: string; back: string },
  ) {}

  failed(err: unknown): boolean {
    if (!databaseUnreachable(err)) return false;
    if (!this.out) this.warn(`${this.words.who}: the database is out of reach (${rootMessage(err)}); ${this.words.waiting}`);
    this.out = true;
    return true;
  }

  reached(): void {
    if (this.out) this.warn(`${this.words.who}: the database answers again; ${this.words.back}`);
    this.out = false;
  }
}
