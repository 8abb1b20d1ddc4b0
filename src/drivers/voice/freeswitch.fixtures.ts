/**
 * A fake FreeSWITCH Event Socket (mod_event_socket, inbound) on 127.0.0.1 for the freeswitch
 * driver's tests: `auth/request` on connect, `auth` checked, `event plain` subscriptions (only
 * the events named are sent), `api` answered with api/response, `bgapi` with command/reply then
 * a BACKGROUND_JOB event, `sendmsg` executes answered with CHANNEL_EXECUTE_COMPLETE (carrying
 * the event-uuid as Application-UUID); mod_amd's `amd` sets amd_result after `amdSeconds`, and
 * without mod_amd (`amdLoaded: false`) runs as FreeSWITCH runs an unknown application: it hangs
 * the call up DESTINATION_OUT_OF_ORDER. `set` sets a channel variable; `detect_speech <engine>
 * <grammar> <name>` starts a recognizer that hears the script's `speech` (DETECTED_SPEECH
 * begin-speaking, then detected-speech with an NLSML body; fired only with fire_asr_events set,
 * as FreeSWITCH does) until `detect_speech stop`. Calls follow a script per dialled number. Each
 * channel keeps its own virtual clock: every scripted step lasts whole channel seconds (played in
 * `msPerSecond` real milliseconds each), so durations and billsec are exact whatever the
 * machine's timer lag. Every command is kept for assertions.
 */
import net from 'node:net';
import type { Headers } from './freeswitch-esl.ts';

export interface FakeCallScript {
  /** Channel seconds of ringing before the answer (1). */
  ringSeconds?: number;
  /** The originate fails with this cause (USER_BUSY …); NO_ANSWER rings for originate_timeout first. */
  fail?: string;
  /** With `fail`: no channel was created, so only BACKGROUND_JOB tells (no hangup event). */
  noChannel?: boolean;
  /** Keys pressed after each prompt (playback/speak, 1 s each) in turn, one a second: "12#". */
  dtmf?: string[];
  /** Channel seconds a record lasts (3 by default). */
  recordSeconds?: number;
  /** The callee hangs up (NORMAL_CLEARING) this many channel seconds after answering. */
  hangupAfterSeconds?: number;
  /** A transfer's B-leg: answered, then hung up by the callee after talkSeconds. */
  transfer?: { talkSeconds: number; fail?: string };
  /** What mod_amd's `amd` decides (NOTSURE); '' completes without amd_result. */
  amd?: 'HUMAN' | 'MACHINE' | 'NOTSURE' | '';
  /** Channel seconds the `amd` analysis lasts (2). */
  amdSeconds?: number;
  /**
   * What the caller says to each detect_speech in turn (a string: to every one); '' or none is
   * silence, which brings no result. The words are recognised `speechSeconds` (1) after the start.
   */
  speech?: string | string[];
  speechSeconds?: number;
}

export interface FakeCommand {
  line: string;
  headers: Headers;
}

interface Channel {
  uuid: string;
  script: FakeCallScript;
  /** Virtual epoch ms of the channel's creation, and its clock (ms since then). */
  startMs: number;
  v: number;
  answerMs: number | null;
  prompts: number;
  timers: Set<NodeJS.Timeout>;
  /** Channel variables set by `set`. */
  vars: Record<string, string>;
  /** detect_speech starts so far; the running recognizer's number (0: none). */
  listens: number;
  recognizing: number;
  /** The B-leg bridged to this channel. */
  bridgedTo?: string;
  onEnd?: (leg: Channel) => void;
}

const CAUSES: Record<string, number> = {
  NORMAL_CLEARING: 16,
  USER_BUSY: 17,
  NO_ANSWER: 19,
  CALL_REJECTED: 21,
  DESTINATION_OUT_OF_ORDER: 27,
  NORMAL_TEMPORARY_FAILURE: 41,
  ORIGINATOR_CANCEL: 487,
  ALLOTTED_TIMEOUT: 602,
  GATEWAY_DOWN: 609,
};

/** `{a=1,b='x y'}` → { a: '1', b: 'x y' } (quotes and backslash escapes honoured). */
export function parseChannelVars(block: string): Record<string, string> {
  const vars: Record<string, string> = {};
  let key = '';
  let value = '';
  let inValue = false;
  let quoted = false;
  const flush = () => {
    if (key) vars[key] = value;
    key = value = '';
    inValue = false;
  };
  for (let i = 0; i < block.length; i++) {
    const c = block[i];
    if (c === '\\') value += block[++i] ?? '';
    else if (c === "'") quoted = !quoted;
    else if (c === ',' && !quoted) flush();
    else if (c === '=' && !inValue) inValue = true;
    else if (inValue) value += c;
    else key += c;
  }
  flush();
  return vars;
}

export class FakeFreeswitch {
  readonly commands: FakeCommand[] = [];
  /** Sessions that passed auth. */
  authenticated = 0;
  private readonly server: net.Server;
  private readonly sockets = new Set<net.Socket>();
  /** Subscribed connections and their event names (`event plain A B …`; ALL is every event). */
  private readonly listening = new Map<net.Socket, Set<string>>();
  private readonly channels = new Map<string, Channel>();
  private readonly realStart = Date.now();

  constructor(
    private readonly opts: { password?: string; script?: (to: string) => FakeCallScript; msPerSecond?: number; amdLoaded?: boolean } = {},
  ) {
    this.server = net.createServer((socket) => this.accept(socket));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as net.AddressInfo).port;
  }

  /** The commands whose line starts with `prefix`. */
  sent(prefix: string): FakeCommand[] {
    return this.commands.filter((c) => c.line.startsWith(prefix));
  }

  /** Cuts every connection (as a FreeSWITCH restart or a network failure would); channels live on. */
  dropConnections(): void {
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    for (const ch of this.channels.values()) for (const t of ch.timers) clearTimeout(t);
    this.dropConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get msPerSecond(): number {
    return this.opts.msPerSecond ?? 10;
  }

  /** Virtual epoch milliseconds: channel seconds run msPerSecond real ms each. */
  private now(): number {
    return this.realStart + ((Date.now() - this.realStart) * 1000) / this.msPerSecond;
  }

  private accept(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.setNoDelay(true); // events at once: Nagle would hold one back behind an unacknowledged write
    socket.on('close', () => (this.sockets.delete(socket), this.listening.delete(socket)));
    socket.on('error', () => {});
    let authed = false;
    let buffer = '';
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      // A command is its line, then headers, then a blank line (no command here has a body).
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const [line, ...rest] = buffer.slice(0, end).split('\n');
        buffer = buffer.slice(end + 2);
        const headers: Headers = {};
        for (const h of rest) headers[h.slice(0, h.indexOf(': '))] = h.slice(h.indexOf(': ') + 2);
        this.commands.push({ line, headers });
        if (!authed) {
          authed = this.auth(socket, line);
          continue;
        }
        this.command(socket, line, headers);
      }
    });
    socket.write('Content-Type: auth/request\n\n');
  }

  private auth(socket: net.Socket, line: string): boolean {
    if (line === `auth ${this.opts.password ?? 'ClueCon'}`) {
      this.authenticated += 1;
      this.reply(socket, '+OK accepted');
      return true;
    }
    this.reply(socket, '-ERR invalid');
    socket.end('Content-Type: text/disconnect-notice\nContent-Length: 0\n\n');
    return false;
  }

  private reply(socket: net.Socket, text: string, headers = ''): void {
    socket.write(`Content-Type: command/reply\nReply-Text: ${text}\n${headers}\n`);
  }

  private command(socket: net.Socket, line: string, headers: Headers): void {
    const [verb, ...words] = line.split(' ');
    const rest = words.join(' ');
    if (verb === 'event') {
      this.listening.set(socket, new Set(words.slice(1)));
      return this.reply(socket, `+OK event listener enabled ${words[0]}`);
    }
    if (verb === 'api') {
      const out = this.api(rest);
      return void socket.write(`Content-Type: api/response\nContent-Length: ${Buffer.byteLength(out)}\n\n${out}`);
    }
    if (verb === 'bgapi') {
      const job = headers['Job-UUID'] ?? `job-${this.commands.length}`;
      this.reply(socket, `+OK Job-UUID: ${job}`, `Job-UUID: ${job}\n`);
      if (rest.startsWith('originate ')) this.originate(rest.slice('originate '.length), job);
      return;
    }
    if (verb === 'sendmsg') {
      this.reply(socket, '+OK');
      return this.execute(words[0], headers);
    }
    if (verb === 'exit') {
      this.reply(socket, '+OK bye');
      return void socket.end();
    }
    this.reply(socket, '-ERR command not found');
  }

  private api(command: string): string {
    const [name, ...args] = command.split(' ');
    if (name === 'uuid_kill') {
      if (!this.channels.has(args[0])) return '-ERR No such channel!\n';
      this.hangup(args[0], args[1] ?? 'NORMAL_CLEARING');
      return '+OK\n';
    }
    if (name === 'sched_hangup') {
      const ch = this.channels.get(args[1]);
      if (!ch) return '-ERR No such channel!\n';
      this.later(ch, Number(args[0].replace('+', '')), () => this.hangup(ch.uuid, args[2] ?? 'ALLOTTED_TIMEOUT'));
      return `+OK Scheduled\n`;
    }
    // record_calls: uuid_record (whole-call recording), with RECORD_STEREO set first.
    if (name === 'uuid_setvar' || name === 'uuid_record') return this.channels.has(args[0]) ? '+OK Success\n' : '-ERR No such channel!\n';
    if (name === 'module_exists') return String(args[0] === 'mod_amd' && this.opts.amdLoaded !== false);
    return `-ERR ${name} Command not found!\n`;
  }

  /** Sends an event to every subscribed connection (as FreeSWITCH does), values URL-encoded. */
  private emit(name: string, fields: Record<string, string | number>, body = ''): void {
    const lines = Object.entries({ 'Event-Name': name, ...fields }).map(([k, v]) => `${k}: ${encodeURIComponent(String(v))}\n`);
    if (body) lines.push(`Content-Length: ${Buffer.byteLength(body)}\n`);
    const text = `${lines.join('')}\n${body}`;
    for (const [socket, names] of this.listening) if (names.has(name) || names.has('ALL')) socket.write(`Content-Length: ${Buffer.byteLength(text)}\nContent-Type: text/event-plain\n\n${text}`);
  }

  /** Runs `run` after `seconds` of the channel's time (its clock then reads at least that). */
  private later(ch: Channel, seconds: number, run: () => void): void {
    const target = ch.v + seconds * 1000;
    const timer = setTimeout(() => {
      ch.timers.delete(timer);
      ch.v = Math.max(ch.v, target);
      run();
    }, seconds * this.msPerSecond);
    ch.timers.add(timer);
  }

  private originate(args: string, job: string): void {
    const close = args.indexOf('}');
    const vars = parseChannelVars(args.slice(1, close));
    const dial = args.slice(close + 1).replace(/ &park\(\)$/, '').split('|')[0];
    const to = dial.slice(dial.lastIndexOf('/') + 1);
    const script = this.opts.script?.(to) ?? {};
    const ch = this.open(vars.origination_uuid, script);
    const done = (result: string) => this.emit('BACKGROUND_JOB', { 'Job-UUID': job, 'Job-Command': 'originate' }, `${result}\n`);
    if (script.fail) {
      const seconds = script.fail === 'NO_ANSWER' ? Number(vars.originate_timeout) : 1;
      this.later(ch, seconds, () => {
        if (script.noChannel) this.channels.delete(ch.uuid);
        else this.hangup(ch.uuid, script.fail as string);
        done(`-ERR ${script.fail}`);
      });
      return;
    }
    this.later(ch, script.ringSeconds ?? 1, () => {
      this.answer(ch);
      done(`+OK ${ch.uuid}`);
      const after = script.hangupAfterSeconds;
      if (after !== undefined) this.later(ch, after, () => this.hangup(ch.uuid, 'NORMAL_CLEARING'));
    });
  }

  private open(uuid: string, script: FakeCallScript): Channel {
    const ch: Channel = { uuid, script, startMs: this.now(), v: 0, answerMs: null, prompts: 0, timers: new Set(), vars: {}, listens: 0, recognizing: 0 };
    this.channels.set(uuid, ch);
    return ch;
  }

  private answer(ch: Channel): void {
    ch.answerMs = ch.startMs + ch.v;
    this.emit('CHANNEL_ANSWER', { 'Unique-ID': ch.uuid, 'Answer-State': 'answered', variable_answer_uepoch: Math.round(ch.answerMs * 1000) });
  }

  /** Ends a channel: CHANNEL_HANGUP_COMPLETE with FreeSWITCH's variables (q850 127 above 127). */
  private hangup(uuid: string, cause: string): void {
    const ch = this.channels.get(uuid);
    if (!ch) return;
    this.channels.delete(uuid);
    for (const t of ch.timers) clearTimeout(t);
    const end = ch.startMs + ch.v;
    const code = CAUSES[cause] ?? 41;
    this.emit('CHANNEL_HANGUP_COMPLETE', {
      'Unique-ID': uuid,
      'Hangup-Cause': cause,
      variable_hangup_cause: cause,
      variable_hangup_cause_q850: code > 127 ? 127 : code,
      variable_start_uepoch: Math.round(ch.startMs * 1000),
      variable_answer_uepoch: ch.answerMs === null ? 0 : Math.round(ch.answerMs * 1000),
      variable_end_uepoch: Math.round(end * 1000),
      variable_duration: Math.round((end - ch.startMs) / 1000),
      variable_billsec: ch.answerMs === null ? 0 : Math.round((end - ch.answerMs) / 1000),
    });
    if (ch.bridgedTo) this.hangup(ch.bridgedTo, 'NORMAL_CLEARING');
    ch.onEnd?.(ch);
  }

  private execute(uuid: string, h: Headers): void {
    const ch = this.channels.get(uuid);
    if (!ch) return;
    const app = h['execute-app-name'];
    const arg = h['execute-app-arg'] ?? '';
    const complete = (extra: Record<string, string | number> = {}) => {
      if (!this.channels.has(uuid)) return;
      this.emit('CHANNEL_EXECUTE_COMPLETE', { 'Unique-ID': uuid, Application: app, 'Application-Data': arg, 'Application-UUID': h['event-uuid'] ?? '', ...extra });
    };
    if (app === 'playback' || app === 'speak') {
      const keys = ch.script.dtmf?.[ch.prompts++] ?? '';
      this.later(ch, 1, () => {
        complete({ 'Application-Response': 'FILE PLAYED' });
        [...keys].forEach((digit, i) => this.later(ch, 1 + i, () => this.emit('DTMF', { 'Unique-ID': uuid, 'DTMF-Digit': digit })));
      });
    } else if (app === 'record') {
      const seconds = ch.script.recordSeconds ?? 3;
      this.later(ch, seconds, () => complete({ variable_record_seconds: seconds }));
    } else if (app === 'amd') {
      if (this.opts.amdLoaded === false) return this.hangup(uuid, 'DESTINATION_OUT_OF_ORDER'); // "Invalid Application amd"
      const result = ch.script.amd ?? 'NOTSURE';
      this.later(ch, ch.script.amdSeconds ?? 2, () => complete(result ? { variable_amd_result: result, variable_amd_cause: 'SCRIPTED' } : {}));
    } else if (app === 'bridge') {
      this.bridge(ch, arg, complete);
    } else if (app === 'set') {
      const at = arg.indexOf('=');
      if (at > 0) ch.vars[arg.slice(0, at)] = arg.slice(at + 1);
      complete();
    } else if (app === 'detect_speech') {
      this.detectSpeech(ch, arg.split(' '));
      complete(); // detect_speech returns at once; the recognizer runs on the channel's audio
    } else {
      this.later(ch, 1, () => complete()); // conference, fifo …: the caller leaves after a second
    }
  }

  /** mod_dptools' detect_speech: `stop`, or `<engine> <grammar> <name>` starting a recognizer. */
  private detectSpeech(ch: Channel, args: string[]): void {
    if (args[0] === 'stop') {
      ch.recognizing = 0;
      return;
    }
    if (args.length < 3) return;
    const run = ++ch.listens;
    ch.recognizing = run;
    const said = Array.isArray(ch.script.speech) ? ch.script.speech[run - 1] : ch.script.speech;
    if (!said) return;
    const fire = (type: string, body = '') => {
      // FreeSWITCH fires ASR events only with fire_asr_events set; else they stay on the session.
      if (ch.recognizing !== run || ch.vars.fire_asr_events !== 'true') return;
      this.emit('DETECTED_SPEECH', { 'Unique-ID': ch.uuid, 'Speech-Type': type }, body);
    };
    const seconds = ch.script.speechSeconds ?? 1;
    this.later(ch, Math.min(1, seconds) / 2, () => fire('begin-speaking'));
    this.later(ch, seconds, () => {
      const words = said.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c] as string);
      fire(
        'detected-speech',
        `<?xml version="1.0"?>\n<result grammar="${args[1]}">\n  <interpretation grammar="${args[1]}" confidence="90">\n    <input mode="speech">${words}</input>\n  </interpretation>\n</result>\n`,
      );
    });
  }

  /** `bridge {origination_uuid=…}dial`: the B-leg answers, talks, hangs up; then the bridge returns. */
  private bridge(a: Channel, arg: string, complete: (extra?: Record<string, string>) => void): void {
    const close = arg.indexOf('}');
    const vars = parseChannelVars(arg.slice(1, close));
    const leg = a.script.transfer ?? { talkSeconds: 2 };
    const b = this.open(vars.origination_uuid, {});
    b.startMs = a.startMs + a.v; // the B-leg starts now on the A-leg's clock
    if (leg.fail) {
      this.later(b, 1, () => {
        this.hangup(b.uuid, leg.fail as string);
        complete({ variable_originate_disposition: leg.fail as string });
      });
      return;
    }
    a.bridgedTo = b.uuid;
    b.onEnd = (ended) => {
      a.bridgedTo = undefined;
      a.v = Math.max(a.v, ended.startMs + ended.v - a.startMs);
      complete({ variable_bridge_hangup_cause: 'NORMAL_CLEARING' });
    };
    this.later(b, 1, () => {
      this.answer(b);
      this.later(b, leg.talkSeconds, () => this.hangup(b.uuid, 'NORMAL_CLEARING'));
    });
  }
}
