/**
 * A minimal SMTP client over node:net (RFC 5321): EHLO (HELO if refused), MAIL FROM, RCPT TO,
 * DATA, QUIT — enough to hand a message to a local relay (an MTA on the same host or network,
 * such as exim4 or Postfix, which then delivers it). No authentication and no TLS (STARTTLS):
 * a relay that demands either refuses the message, and the refusal is what the caller gets.
 * One connection per message. Its tests talk to a real exim4 on loopback (test/exim.ts).
 */
import net from 'node:net';
import os from 'node:os';
import crypto from 'node:crypto';

export interface MailMessage {
  from: string;
  to: string;
  subject: string;
  text: string;
}

export interface SmtpServer {
  host: string;
  port: number;
  /** Each reply must come within this long (ms); 30 s. */
  timeoutMs?: number;
}

/** smtp://host[:port] → host and port (25 by default); undefined when it is not such a URL. */
export function parseSmtpUrl(url: string): SmtpServer | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined;
  }
  if (u.protocol !== 'smtp:' || !u.hostname) return undefined;
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: u.port ? Number(u.port) : 25 };
}

/** A header value on one line (no header injection through CR or LF). */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim();

/** RFC 2047 for a subject that is not plain ASCII. */
function encodeHeader(s: string): string {
  const line = oneLine(s);
  return /^[\x20-\x7e]*$/.test(line) ? line : `=?UTF-8?B?${Buffer.from(line, 'utf8').toString('base64')}?=`;
}

/** The message as DATA sends it: headers, a blank line, the body with CRLF line ends, dots stuffed. */
export function formatMessage(m: MailMessage, at: Date = new Date()): string {
  const domain = m.from.split('@')[1] ?? 'localhost';
  const headers = [
    `From: <${oneLine(m.from)}>`,
    `To: <${oneLine(m.to)}>`,
    `Subject: ${encodeHeader(m.subject)}`,
    `Date: ${at.toUTCString().replace('GMT', '+0000')}`,
    `Message-ID: <${crypto.randomUUID()}@${oneLine(domain)}>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
  ];
  const body = m.text.replace(/\r?\n/g, '\r\n').split('\r\n').map((l) => (l.startsWith('.') ? `.${l}` : l)).join('\r\n');
  return `${headers.join('\r\n')}\r\n\r\n${body}\r\n`;
}

/** Reads SMTP replies (a reply may span lines "250-…" up to "250 …"). */
class Replies {
  private buffer = '';
  private lines: string[] = [];
  private waiting?: { resolve: (r: { code: number; text: string }) => void; reject: (e: Error) => void };
  private failure?: Error;

  constructor(socket: net.Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      let i: number;
      while ((i = this.buffer.indexOf('\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, i).replace(/\r$/, ''));
        this.buffer = this.buffer.slice(i + 1);
      }
      this.deliver();
    });
    socket.on('error', (err) => this.fail(err));
    socket.on('close', () => this.fail(new Error('the SMTP server closed the connection')));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.waiting?.reject(this.failure);
    this.waiting = undefined;
  }

  private deliver(): void {
    if (!this.waiting) return;
    const end = this.lines.findIndex((l) => /^\d{3}(?: |$)/.test(l));
    if (end < 0) return;
    const reply = this.lines.splice(0, end + 1);
    const text = reply.map((l) => l.slice(4)).join('\n');
    const { resolve } = this.waiting;
    this.waiting = undefined;
    resolve({ code: Number(reply[end].slice(0, 3)), text });
  }

  next(): Promise<{ code: number; text: string }> {
    return new Promise((resolve, reject) => {
      if (this.failure && !this.lines.length) return reject(this.failure);
      this.waiting = { resolve, reject };
      this.deliver();
    });
  }
}

/**
 * Sends one message through `server`; resolves with the server's answer to the message
 * ("250 OK id=…"), or rejects with the step and the server's refusal.
 */
export async function sendMail(server: SmtpServer, m: MailMessage): Promise<string> {
  const socket = net.connect({ host: server.host, port: server.port });
  socket.setTimeout(server.timeoutMs ?? 30_000, () => socket.destroy(new Error('the SMTP server did not answer in time')));
  const replies = new Replies(socket);
  const expect = async (step: string, ok: (code: number) => boolean) => {
    const r = await replies.next();
    if (!ok(r.code)) throw new Error(`SMTP ${step} refused: ${r.code} ${r.text}`);
    return `${r.code} ${r.text}`;
  };
  const send = (line: string) => socket.write(`${line}\r\n`);
  try {
    await expect('greeting', (c) => c === 220);
    const name = oneLine(os.hostname()) || 'localhost';
    send(`EHLO ${name}`);
    const ehlo = await replies.next();
    if (ehlo.code !== 250) {
      send(`HELO ${name}`);
      await expect('HELO', (c) => c === 250);
    }
    send(`MAIL FROM:<${oneLine(m.from)}>`);
    await expect('MAIL FROM', (c) => c === 250);
    send(`RCPT TO:<${oneLine(m.to)}>`);
    await expect('RCPT TO', (c) => c === 250 || c === 251);
    send('DATA');
    await expect('DATA', (c) => c === 354);
    socket.write(`${formatMessage(m)}.\r\n`);
    const accepted = await expect('message', (c) => c === 250);
    send('QUIT');
    await replies.next().catch(() => undefined);
    return accepted;
  } catch (err) {
    // Refused: take our leave (RFC 5321 §4.1.1.10), unless the connection is already gone.
    if (socket.writable) await new Promise<void>((resolve) => socket.end('QUIT\r\n', () => resolve()));
    throw err;
  } finally {
    socket.destroy();
  }
}
