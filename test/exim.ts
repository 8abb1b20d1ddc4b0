/**
 * A real MTA for the e-mail tests: Debian's exim4 (`exim4-daemon-light`, installed by
 * scripts/peers.js) as a daemon on a random loopback port, with a configuration of its own in a
 * temporary directory (test/exim.conf: no DNS, no TLS, every recipient accepted except those at
 * `refused.example`, answered 550). What it accepts it delivers into one maildir there; `mail()`
 * reads the messages back with their envelope. Stopped by its pid. A missing exim4 fails the test.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A message as exim delivered it. */
export interface DeliveredMail {
  /** The envelope sender (exim's Return-path). */
  from: string;
  /** The envelope recipient (exim's Envelope-to). */
  to: string;
  /** The message with exim's headers, lines ended by LF as a maildir keeps them. */
  data: string;
}

export interface Exim {
  port: number;
  /** The messages delivered so far, oldest first. */
  mail(): DeliveredMail[];
  /** Waits (up to 10 s) for a message to `to`: exim answers 250, then delivers in the background. */
  mailTo(to: string): Promise<DeliveredMail>;
  /** What it logged (its mainlog, then its rejectlog and paniclog), for assertions and diagnosis. */
  log(): string;
  stop(): Promise<void>;
}

async function freeTcpPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Resolves once something on `port` greets with 220 (within `ms`). */
async function greeted(port: number, child: ChildProcess, output: () => string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exim4 exited (${child.exitCode}):\n${output().slice(-3000)}`);
    const greeting = await new Promise<string>((resolve) => {
      const socket = net.connect({ host: '127.0.0.1', port });
      socket.setEncoding('utf8');
      socket.once('data', (line: string) => {
        socket.end('QUIT\r\n');
        resolve(line);
      });
      socket.once('error', () => resolve(''));
    });
    if (greeting.startsWith('220')) return;
    if (Date.now() > end) throw new Error(`exim4 did not greet on 127.0.0.1:${port}:\n${output().slice(-3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function parse(file: string): DeliveredMail {
  const data = fs.readFileSync(file, 'utf8');
  const header = (name: string) => new RegExp(`^${name}: <?([^>\\n]*)>?$`, 'im').exec(data)?.[1] ?? '';
  return { from: header('Return-path'), to: header('Envelope-to'), data };
}

/** Starts exim4 on a free loopback port; the caller stops it. */
export async function startExim(): Promise<Exim> {
  const binary = '/usr/sbin/exim4'; // where Debian installs it (scripts/peers.js checks the same path)
  if (!fs.existsSync(binary)) throw new Error('exim4 is not installed: run "apt-get install exim4-daemon-light" (npm test installs it as root)');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dialer-exim-'));
  fs.chmodSync(dir, 0o755); // exim's user goes through it
  for (const sub of ['spool', 'log', 'mail']) fs.mkdirSync(path.join(dir, sub));
  // exim receives and delivers as its own user (Debian-exim), which must own where it writes.
  const [uid, gid] = ['-u', '-g'].map((flag) => Number(execFileSync('id', [flag, 'Debian-exim'], { encoding: 'utf8' }).trim()));
  for (const sub of ['spool', 'log', 'mail']) fs.chownSync(path.join(dir, sub), uid, gid);
  const config = path.join(dir, 'exim.conf');
  fs.writeFileSync(config, fs.readFileSync(path.join(here, 'exim.conf'), 'utf8').replaceAll('@DIR@', dir));
  const maildir = path.join(dir, 'mail', 'new');
  const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
  const logs = () => ['mainlog', 'rejectlog', 'paniclog'].map((f) => read(path.join(dir, 'log', f))).join('');

  for (let tries = 0; ; tries++) {
    const port = await freeTcpPort();
    // -bdf: a daemon in the foreground, so its pid is the child's; -oX: listen on this port only.
    const child = spawn(binary, ['-C', config, '-bdf', '-oX', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const spawned = new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    await spawned;
    try {
      await greeted(port, child, () => out + logs());
    } catch (err) {
      child.kill('SIGKILL');
      if (tries < 2 && /Address already in use/.test(logs())) continue; // the port was taken meanwhile
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
    const mail = () =>
      (fs.existsSync(maildir) ? fs.readdirSync(maildir) : [])
        .map((name) => path.join(maildir, name))
        .sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs || a.localeCompare(b))
        .map(parse);
    return {
      port,
      mail,
      async mailTo(to) {
        const end = Date.now() + 10_000;
        for (;;) {
          const found = mail().find((m) => m.to === to);
          if (found) return found;
          if (Date.now() > end) throw new Error(`no mail delivered to ${to}; exim logged:\n${logs().slice(-3000)}`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      },
      log: logs,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          await exited;
        }
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  }
}
