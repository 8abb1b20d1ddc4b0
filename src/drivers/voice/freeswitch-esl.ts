/**
 * FreeSWITCH's Event Socket protocol, inbound side (what the freeswitch driver speaks): messages
 * are `Key: value` header blocks ended by a blank line, with a Content-Length body; commands
 * get a command/reply or api/response in the order sent; events (`event plain`) come as
 * text/event-plain bodies whose header values are URL-encoded. (The fake FreeSWITCH of the
 * tests, freeswitch.fixtures.ts, frames messages with its own code, not this parser.)
 */
import net from 'node:net';
import type { FreeswitchSettings } from './freeswitch-settings.ts';

export type Headers = Record<string, string>;
export interface EslMessage {
  headers: Headers;
  body: string;
}

/** `Key: value` lines; event-plain bodies URL-encode their values. */
function parseHeaders(text: string, decode: boolean): Headers {
  const headers: Headers = {};
  for (const line of text.split('\n')) {
    const at = line.indexOf(': ');
    if (at <= 0) continue;
    const value = line.slice(at + 2);
    try {
      headers[line.slice(0, at)] = decode ? decodeURIComponent(value) : value;
    } catch {
      headers[line.slice(0, at)] = value;
    }
  }
  return headers;
}

/** Splits a byte stream into ESL messages: headers up to a blank line, then Content-Length bytes. */
export class EslParser {
  private buffer: Buffer = Buffer.alloc(0);
  constructor(private readonly onMessage: (message: EslMessage) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const headers = parseHeaders(this.buffer.subarray(0, end).toString('utf8'), false);
      const length = Number(headers['Content-Length'] ?? 0);
      if (this.buffer.length < end + 2 + length) return;
      const body = this.buffer.subarray(end + 2, end + 2 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 2 + length);
      this.onMessage({ headers, body });
    }
  }
}

/**
 * A text/event-plain body: URL-encoded headers, then, after a blank line, the event's own body
 * when it has one (BACKGROUND_JOB's result, DETECTED_SPEECH's NLSML), kept as sent.
 */
export function parseEvent(body: string): EslMessage {
  const end = body.indexOf('\n\n');
  const headers = parseHeaders(end < 0 ? body : body.slice(0, end), true);
  return { headers, body: end < 0 ? '' : body.slice(end + 2) };
}

/** One Event Socket connection: commands answered in order, events handed on. */
export class EslConnection {
  closed = false;
  onClose: () => void = () => {};
  private readonly replies: ((reply: EslMessage | Error) => void)[] = [];
  private greeted!: () => void;
  readonly greeting = new Promise<void>((resolve) => (this.greeted = resolve));

  constructor(
    private readonly socket: net.Socket,
    onEvent: (event: EslMessage) => void,
  ) {
    const parser = new EslParser((m) => {
      const type = m.headers['Content-Type'];
      if (type === 'auth/request') this.greeted();
      else if (type === 'command/reply' || type === 'api/response') this.replies.shift()?.(m);
      else if (type === 'text/event-plain') onEvent(parseEvent(m.body));
    });
    socket.on('data', (chunk: Buffer) => parser.push(chunk));
    socket.on('error', () => {}); // 'close' follows
    socket.on('close', () => {
      this.closed = true;
      for (const settle of this.replies.splice(0)) settle(new Error('connection closed'));
      this.onClose();
    });
  }

  /** Sends a command (with extra headers) and waits for its command/reply or api/response. */
  command(line: string, headers: Headers = {}): Promise<EslMessage> {
    if (this.closed) return Promise.reject(new Error('connection closed'));
    const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\n`);
    this.socket.write(`${line}\n${extra.join('')}\n`);
    return new Promise((resolve, reject) => this.replies.push((r) => (r instanceof Error ? reject(r) : resolve(r))));
  }

  /** `api …`: the command's output ('+OK …' or '-ERR …'). */
  async api(line: string): Promise<string> {
    return (await this.command(`api ${line}`)).body;
  }

  end(): void {
    if (!this.closed) this.socket.end('exit\n\n');
  }
}

export const replyText = (m: EslMessage) => m.headers['Reply-Text'] ?? '';

/** Connects, authenticates and subscribes, within connect_timeout_ms. */
export function openEsl(s: FreeswitchSettings, events: string, onEvent: (event: EslMessage) => void): Promise<EslConnection> {
  return new Promise((resolve, reject) => {
    // Commands wait for replies one by one: no Nagle delay on small writes.
    const socket = net.connect({ host: s.host, port: s.port, noDelay: true });
    const conn = new EslConnection(socket, onEvent);
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`no Event Socket greeting within ${s.connect_timeout_ms} ms`)), s.connect_timeout_ms);
    socket.once('error', fail);
    conn.greeting
      .then(async () => {
        const auth = await conn.command(`auth ${s.password}`);
        if (!replyText(auth).startsWith('+OK')) throw new Error(`the Event Socket refused the password (${replyText(auth) || 'no reply'})`);
        const sub = await conn.command(`event plain ${events}`);
        if (!replyText(sub).startsWith('+OK')) throw new Error(`event subscription refused (${replyText(sub)})`);
      })
      .then(() => {
        clearTimeout(timer);
        socket.off('error', fail);
        resolve(conn);
      }, fail);
  });
}
