/**
 * The control socket, `DATA_DIR/control.sock`: how a CLI command runs while a server holds the
 * embedded database. PGlite allows one process per data directory (database.ts takes a lock),
 * so a `serve` on the embedded database listens on this Unix socket, and a CLI that finds it
 * hands over its whole command line; the server runs the same commander program in-process,
 * against its open database (cli-support.ts `withDatabase`), and streams the output back.
 *
 * The socket is created owner-only (0600, under a umask, so no one else can connect even for
 * an instant): a command may do anything the owner's CLI may. PostgreSQL needs none of this;
 * there the CLI opens a connection of its own.
 *
 * Protocol, JSON lines: the CLI sends `{argv, cwd, stdoutIsTTY, stderrIsTTY}`; the server
 * answers `{stdout: text}` and `{stderr: text}` as the command writes, then `{exit: code}`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeDatabase } from './cli-support.ts';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';

const MAX_REQUEST_BYTES = 1024 * 1024;

export function controlSocketPath(dataDir: string): string {
  return path.join(dataDir, 'control.sock');
}

interface Request {
  argv: string[];
  cwd: string;
  stdoutIsTTY: boolean;
  stderrIsTTY: boolean;
}

function parseRequest(line: string): Request | undefined {
  try {
    const r = JSON.parse(line) as Partial<Request>;
    const ok = Array.isArray(r.argv) && r.argv.every((a) => typeof a === 'string') && typeof r.cwd === 'string' && path.isAbsolute(r.cwd);
    return ok ? { argv: r.argv as string[], cwd: r.cwd as string, stdoutIsTTY: r.stdoutIsTTY === true, stderrIsTTY: r.stderrIsTTY === true } : undefined;
  } catch {
    return undefined;
  }
}

/** Calls `onLine` for each line the socket sends (decoded as UTF-8). */
function readLines(socket: net.Socket, onLine: (line: string) => void, maxBytes = Infinity): void {
  let buffered = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      onLine(line);
    }
    if (buffered.length > maxBytes) socket.destroy();
  });
}

export interface ControlServer {
  /** Stops accepting commands and waits for those running (the database is still open). */
  close(): Promise<void>;
}

/**
 * Listens on DATA_DIR/control.sock for CLI commands. The caller holds the embedded database's
 * lock, so a socket file already there is a dead server's: it is removed.
 */
export async function listenForCommands(config: Config, database: Database, log: { info(m: string): void }): Promise<ControlServer> {
  const socketPath = controlSocketPath(config.dataDir);
  const running = new Set<Promise<unknown>>();
  const where = describeDatabase(config, process.pid);

  const server = net.createServer((socket) => {
    socket.on('error', () => {}); // the CLI went away (Ctrl-C): its command still runs to its end
    let started = false;
    readLines(
      socket,
      (line) => {
        if (started) return;
        started = true;
        const request = parseRequest(line);
        if (!request) return void socket.destroy();
        const send = (message: object) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(message)}\n`);
        };
        // Only the command's name: its options may hold a password.
        log.info(`running "${request.argv.slice(0, 2).filter((a) => /^[a-z][a-z-]*$/.test(a)).join(' ')}" for a CLI process`);
        const command = (async () => {
          const { runCommand } = await import('./cli.ts');
          const exit = await runCommand(request.argv, {
            database,
            where,
            cwd: request.cwd,
            stderrIsTTY: request.stderrIsTTY,
            stdout: (text) => send({ stdout: text }),
            stderr: (text) => send({ stderr: text }),
          });
          send({ exit });
          socket.end();
        })();
        running.add(command);
        void command.finally(() => running.delete(command));
      },
      MAX_REQUEST_BYTES,
    );
  });

  fs.rmSync(socketPath, { force: true });
  // The socket file is made by listen() itself, synchronously: under this umask it is 0600 from
  // the start (the chmod after is for file systems that ignore the umask on sockets).
  const umask = process.umask(0o177);
  try {
    server.listen(socketPath);
  } finally {
    process.umask(umask);
  }
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  fs.chmodSync(socketPath, 0o600);
  log.info(`CLI commands started while this server runs are run here (control socket ${socketPath})`);

  return {
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.allSettled(running);
      fs.rmSync(socketPath, { force: true });
    },
  };
}

/** A connection to the server's control socket, or undefined when no server listens there. */
async function connect(socketPath: string): Promise<net.Socket | undefined> {
  if (!fs.existsSync(socketPath)) return undefined;
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once('connect', () => resolve(socket));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      // A socket file left by a server that was killed: nobody listens, so nobody holds the data.
      if (err.code === 'ECONNREFUSED' || err.code === 'ENOENT') resolve(undefined);
      else reject(new Error(`cannot reach the server through ${socketPath}: ${err.message}`));
    });
  });
}

/**
 * Hands `argv` to the server that holds the embedded database, if one listens on its control
 * socket, and prints what the command writes. Returns the command's exit code, or undefined
 * when there is no server to hand it to (the caller then opens the database itself).
 */
export async function forwardToServer(argv: string[], config: Config): Promise<number | undefined> {
  if (config.databaseUrl) return undefined; // PostgreSQL: the CLI connects beside the server
  const socket = await connect(controlSocketPath(config.dataDir));
  if (!socket) return undefined;
  if (argv[0] === 'migrate') {
    socket.destroy();
    process.stdout.write(`database is up to date (the server running on ${config.dataDir} applied the migrations when it started)\n`);
    return 0;
  }
  const request: Request = { argv, cwd: process.cwd(), stdoutIsTTY: Boolean(process.stdout.isTTY), stderrIsTTY: Boolean(process.stderr.isTTY) };
  socket.write(`${JSON.stringify(request)}\n`);
  return new Promise((resolve) => {
    let exit: number | undefined;
    readLines(socket, (line) => {
      let message: { stdout?: string; stderr?: string; exit?: number };
      try {
        message = JSON.parse(line);
      } catch {
        return void socket.destroy(); // not our server: 'close' says the command did not finish
      }
      if (message.stdout !== undefined) process.stdout.write(message.stdout);
      if (message.stderr !== undefined) process.stderr.write(message.stderr);
      if (message.exit !== undefined) exit = message.exit;
    });
    socket.on('error', () => {}); // 'close' follows and says what matters
    socket.on('close', () => {
      if (exit !== undefined) return resolve(exit);
      process.stderr.write(
        `campaign-dialer: the server holding ${config.dataDir} stopped before the command finished; check what it did before running it again\n`,
      );
      resolve(1);
    });
  });
}
