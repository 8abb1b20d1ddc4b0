/**
 * The far ends of the sip driver's tests: real sipp and kamailio processes on random loopback
 * ports, stopped by their pid. A missing binary fails the test (CI installs sip-tester and
 * kamailio), it never skips it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

export interface Peer {
  port: number;
  child: ChildProcess;
  /** What it printed (stdout and stderr), for assertions and diagnosis. */
  output(): string;
  stop(): Promise<void>;
}

/** A UDP port free now on loopback (and the one after it, for sipp's media port). */
export async function freeUdpPort(): Promise<number> {
  for (;;) {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    if (port < 65000) return port;
  }
}

function start(command: string, args: string[], dir: string): Promise<Omit<Peer, 'port'>> {
  const child = spawn(command, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(child.pid, 'SIGTERM');
    const timer = setTimeout(() => child.exitCode === null && child.pid !== undefined && process.kill(child.pid, 'SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    child.once('error', (err) => reject(new Error(`cannot run ${command} (install sip-tester and kamailio): ${err.message}`)));
    // Both bind their sockets at once; give them a moment, then make sure they did not exit.
    setTimeout(() => {
      if (child.exitCode !== null) reject(new Error(`${command} exited (${child.exitCode}):\n${out.slice(-3000)}`));
      else resolve({ child, output: () => out, stop });
    }, 700);
  });
}

/**
 * sipp as a carrier playing `scenario` (a file of test/sip/) on a random loopback port, in `dir`
 * (where its scenario finds audio files), with `extra` options (-set, -trace_logs …).
 */
export async function startSipp(scenario: string, dir: string, extra: string[] = []): Promise<Peer> {
  const port = await freeUdpPort();
  const mediaPort = await freeUdpPort();
  const args = ['-sf', path.join(here, scenario), '-i', '127.0.0.1', '-p', String(port), '-mp', String(mediaPort), '-nostdin', '-trace_err', '-error_file', path.join(dir, `sipp-${port}-errors.log`), ...extra];
  return { port, ...(await start('sipp', args, dir)) };
}

/** Kamailio (test/sip/kamailio.cfg) in front of the sipp ports in `targets`, in that order. */
export async function startKamailio(dir: string, opts: { targets: number[]; user: string; password: string; cps: number }): Promise<Peer> {
  const port = await freeUdpPort();
  const list = path.join(dir, `dispatcher-${port}.list`);
  fs.writeFileSync(list, opts.targets.map((t, i) => `1 sip:127.0.0.1:${t} 0 ${opts.targets.length - i}\n`).join(''));
  const args = [
    '-f', path.join(here, 'kamailio.cfg'), '-DD', '-E', '-n', '1', '-m', '32', '-M', '4',
    '-l', `udp:127.0.0.1:${port}`, '-Y', dir, '-w', dir, '-P', path.join(dir, `kamailio-${port}.pid`),
    '-A', `AUTH_USER="${opts.user}"`, '-A', `AUTH_PASSWORD="${opts.password}"`, '-A', `CPS_LIMIT=${opts.cps}`, '-A', `DISPATCHER_LIST="${list}"`,
  ];
  return { port, ...(await start('kamailio', args, dir)) };
}

/** A SIP message of sipp's trace (-trace_msg). */
export interface SipMessage {
  direction: 'received' | 'sent';
  /** The request line or status line. */
  start: string;
  text: string;
}

/**
 * sipp playing `scenario` (startSipp, with `extra` arguments) with every SIP message it receives or
 * sends written to `file`, and that trace read back: whole, as messages, or as a timeline (a line
 * a message: sipp's time, received or sent, and its first line) for a failure's message.
 */
export async function startTracedSipp(
  scenario: string,
  dir: string,
  file: string,
  extra: string[] = [],
): Promise<{ sipp: Peer; messages: () => SipMessage[]; trace: () => string; timeline: () => string }> {
  const sipp = await startSipp(scenario, dir, ['-trace_msg', '-message_file', file, ...extra]);
  const trace = () => (fs.existsSync(file) ? fs.readFileSync(file, 'latin1') : '');
  // Each message: a line of dashes and a date, "UDP message received [n] bytes :" (or "sent"), a blank line, the message.
  const messages = () =>
    trace()
      .split(/^-{20,}.*$/m)
      .map((chunk) => /message (received|sent)[^\n]*\n\s*\n([^\r\n]+)([\s\S]*)$/.exec(chunk))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ direction: m[1] as SipMessage['direction'], start: m[2], text: m[2] + m[3] }));
  const timeline = () => {
    const parts = trace().split(/^(-{20,}.*)$/m);
    const lines: string[] = [];
    for (let i = 1; i + 1 < parts.length; i += 2) {
      const m = /message (received|sent)[^\n]*\n\s*\n([^\r\n]+)/.exec(parts[i + 1]);
      if (m) lines.push(`${parts[i].replace(/^-+\s*/, '')} ${m[1]} ${m[2]}`);
    }
    return lines.join('\n');
  };
  return { sipp, messages, trace, timeline };
}

/** The Call-IDs of the INVITEs sipp received (its trace, startTracedSipp), each once. */
export function invitedCallIds(messages: SipMessage[]): Set<string> {
  const invites = messages.filter((m) => m.direction === 'received' && m.start.startsWith('INVITE '));
  return new Set(invites.map((m) => /^(?:Call-ID|i):\s*(.*?)\s*$/im.exec(m.text)?.[1] ?? ''));
}
