/**
 * The freeswitch driver (contract §7): one inbound Event Socket connection per gateway, opened on
 * the first originate (`auth`, then `event plain` for the events below). A call is
 * `bgapi originate {vars}<dial string> &park()` with our call id as origination_uuid; its
 * BACKGROUND_JOB (`-ERR USER_BUSY` …), CHANNEL_ANSWER and CHANNEL_HANGUP_COMPLETE events settle
 * `answered` and `ended`. The IVR runs over the same socket: each command is a `sendmsg`
 * execute carrying our event-uuid, done when the CHANNEL_EXECUTE_COMPLETE with that
 * Application-UUID comes (or the call ends). DTMF is read from DTMF events, with our own timers.
 * A dropped socket ends every call in progress as a failure (NORMAL_TEMPORARY_FAILURE); nothing
 * is ever originated again, and those channels are killed once the next connection is up.
 * Network timing uses real timers (sockets do not follow a test clock); times of calls come from
 * FreeSWITCH's *_uepoch variables, else ctx.clock.
 * Answering-machine detection (campaign `voicemail`) is mod_amd's `amd` application, as in
 * Newfies-Dialer (github.com/areski/mod_amd, Asterisk's app_amd ported), which must be loaded in
 * FreeSWITCH: run on answer, its `amd_result` (HUMAN, MACHINE, NOTSURE) becomes the AMD result
 * before `answered` settles. Without mod_amd (asked as each connection opens, since FreeSWITCH
 * hangs up a call that runs an unknown application) every result is 'unsure', which the engine
 * treats as a person.
 * Speech recognition is mod_dptools' `detect_speech` with the ASR module named in `asr_engine`
 * (mod_pocketsphinx, mod_unimrcp …), which must be loaded in FreeSWITCH: listen() sets
 * fire_asr_events (without it DETECTED_SPEECH stays on the channel and never reaches the socket),
 * starts `detect_speech <asr_engine> <asr_grammar> dialer`, takes the `<input>` text of the first
 * DETECTED_SPEECH `detected-speech` result (NLSML in the event's body), and stops recognition.
 * Without the module nothing is ever detected: every listen() waits its timeout and hears ''.
 * The protocol is a few dozen lines of framing (freeswitch-esl.ts), written rather than taken
 * from a package, so reconnection and "never originate twice" stay in plain sight; the commands
 * and events themselves are read and written by plain functions in freeswitch-messages.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { type EslConnection, type EslMessage, type Headers, openEsl, replyText } from './freeswitch-esl.ts';
import { AMD_RESULTS, CAUSES, channelTime, channelVars, codeOf, dialString, hangupOf, nameOf, nlsmlText, originateCommand } from './freeswitch-messages.ts';
import { freeswitchSettings, type FreeswitchSettings } from './freeswitch-settings.ts';
import { Q850, type AmdResult, type AnswerOutcome, type Call, type DriverContext, type Hangup, type OriginateRequest, type TelephonyDriver } from './driver.ts';

const EVENTS = 'BACKGROUND_JOB CHANNEL_ANSWER CHANNEL_HANGUP_COMPLETE CHANNEL_EXECUTE_COMPLETE DTMF DETECTED_SPEECH';
/** detect_speech's grammar name (its third argument: what `detect_speech nogrammar` would name). */
const GRAMMAR_NAME = 'dialer';
const MAX_RECONNECT_MS = 30_000;
/** How long a transfer waits for the B-leg's hangup event after the bridge returned. */
const LEG_GRACE_MS = 2000;
/** close(): how long hung-up calls may take to report their hangup. */
const CLOSE_GRACE_MS = 2000;

/** Resolves with `promise`, or undefined after `ms` (the timer is cleared either way). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the driver shares with its calls. */
interface Line {
  settings: FreeswitchSettings;
  ctx: DriverContext;
  /** DATA_DIR as FreeSWITCH sees it. */
  mediaDir: string;
  connection(): Promise<EslConnection>;
  current(): EslConnection | undefined;
  follow(uuid: string, channel: Channel): void;
  unfollow(uuid: string): void;
  job(jobUuid: string, call: FreeswitchCall): void;
  /** Whether FreeSWITCH has mod_amd loaded (false when the socket is down). */
  amdLoaded(): Promise<boolean>;
}

/** A channel whose events we follow: an A-leg (FreeswitchCall) or a transfer's B-leg. */
interface Channel {
  onEvent(name: string, h: Headers, body: string): void;
  /** The socket dropped: end as a failure. */
  drop(): void;
}

export class FreeswitchDriver implements TelephonyDriver {
  readonly name = 'freeswitch';
  private readonly line: Line;
  private readonly settings: FreeswitchSettings;
  private conn: EslConnection | undefined;
  private connecting: Promise<EslConnection> | undefined;
  private retryAt = 0;
  private retryDelay: number;
  private lastError = '';
  private closed = false;
  private readonly channels = new Map<string, Channel>();
  private readonly jobs = new Map<string, FreeswitchCall>();
  /** Channels that were ringing or up when the socket dropped: killed on the next connection. */
  private orphans: string[] = [];
  /** `module_exists mod_amd`, asked as each connection opens (a restarted FreeSWITCH may have loaded it). */
  private amd: Promise<boolean> = Promise.resolve(false);

  /** Throws when the settings are invalid (the gateway resource checks them before). */
  constructor(settings: unknown, ctx: DriverContext) {
    const checked = freeswitchSettings(settings);
    if (!checked.ok) throw new Error(`invalid freeswitch settings: ${checked.errors.join(' ')}`);
    this.settings = checked.value;
    this.retryDelay = this.settings.reconnect_ms;
    this.line = {
      settings: this.settings,
      ctx,
      mediaDir: this.settings.media_dir || ctx.dataDir,
      connection: () => this.connection(),
      current: () => (this.conn && !this.conn.closed ? this.conn : undefined),
      follow: (uuid, channel) => this.channels.set(uuid, channel),
      unfollow: (uuid) => this.channels.delete(uuid),
      job: (jobUuid, call) => this.jobs.set(jobUuid, call),
      amdLoaded: () => (this.line.current() ? this.amd : Promise.resolve(false)),
    };
  }

  /** Why the last connection failed ('' when none did). */
  get error(): string {
    return this.lastError;
  }

  originate(request: OriginateRequest): Call {
    return new FreeswitchCall(this.line, request);
  }

  /** The connection, opened if needed; after a failure, fails at once until the backoff passes. */
  private connection(): Promise<EslConnection> {
    const { host, port } = this.settings;
    if (this.conn && !this.conn.closed) return Promise.resolve(this.conn);
    if (this.connecting) return this.connecting;
    if (this.closed) return Promise.reject(new Error('the driver is closed'));
    if (Date.now() < this.retryAt) return Promise.reject(new Error(this.lastError));
    this.connecting = openEsl(this.settings, EVENTS, (event) => this.dispatch(event)).then(
      (conn) => {
        this.connecting = undefined;
        this.conn = conn;
        this.retryDelay = this.settings.reconnect_ms;
        conn.onClose = () => this.dropped(conn);
        this.amd = conn.api('module_exists mod_amd').then((reply) => reply.trim() === 'true', () => false);
        for (const uuid of this.orphans.splice(0)) void conn.api(`uuid_kill ${uuid} NORMAL_TEMPORARY_FAILURE`).catch(() => undefined);
        return conn;
      },
      (err: Error) => {
        this.connecting = undefined;
        this.lastError = `FreeSWITCH ${host}:${port}: ${err.message}`;
        this.retryAt = Date.now() + this.retryDelay;
        this.retryDelay = Math.min(this.retryDelay * 2, MAX_RECONNECT_MS);
        throw new Error(this.lastError);
      },
    );
    return this.connecting;
  }

  private dispatch(event: EslMessage): void {
    const h = event.headers;
    if (h['Event-Name'] === 'BACKGROUND_JOB') {
      const call = this.jobs.get(h['Job-UUID']);
      this.jobs.delete(h['Job-UUID']);
      call?.onJob(event.body.trim());
      return;
    }
    this.channels.get(h['Unique-ID'])?.onEvent(h['Event-Name'], h, event.body);
  }

  /** The socket dropped: every call in progress ends as a failure; the next originate reconnects. */
  private dropped(conn: EslConnection): void {
    if (conn !== this.conn) return;
    this.conn = undefined;
    this.lastError = `FreeSWITCH ${this.settings.host}:${this.settings.port}: connection lost`;
    this.jobs.clear();
    for (const [uuid, channel] of [...this.channels]) {
      if (channel instanceof FreeswitchCall) this.orphans.push(uuid);
      channel.drop();
    }
    this.channels.clear();
  }

  async close(): Promise<void> {
    this.closed = true;
    const calls = [...this.channels.values()].filter((c): c is FreeswitchCall => c instanceof FreeswitchCall);
    await Promise.all(
      calls.map(async (call) => {
        await call.hangup();
        await within(call.ended, CLOSE_GRACE_MS);
      }),
    );
    const conn = this.conn;
    if (conn) this.dropped(conn);
    conn?.end();
  }
}

/** A hangup we tell ourselves (FreeSWITCH could not): the socket dropped, the channel was gone … */
function localHangup(cause: number, startedAt: Date, answeredAt: Date | null, endedAt: Date, causeName = nameOf(cause)): Hangup {
  const seconds = (from: Date) => Math.max(0, Math.round((endedAt.getTime() - from.getTime()) / 1000));
  return { cause, causeName, startedAt, answeredAt, endedAt, duration: seconds(startedAt), billsec: answeredAt ? seconds(answeredAt) : 0 };
}

class FreeswitchCall implements Call, Channel {
  readonly callId: string;
  readonly answered: Promise<AnswerOutcome>;
  readonly ended: Promise<Hangup>;
  private resolveAnswered!: (outcome: AnswerOutcome) => void;
  private resolveEnded!: (hangup: Hangup) => void;
  /** dialing: waiting for the socket; ringing: originate sent. */
  private state: 'dialing' | 'ringing' | 'up' | 'ended' = 'dialing';
  private jobPending = false;
  private readonly startedAt: Date;
  private answeredAt: Date | null = null;
  /** Commands waiting for their CHANNEL_EXECUTE_COMPLETE, by Application-UUID. */
  private readonly apps = new Map<string, (h: Headers | null) => void>();
  /** Keys pressed since the last prompt began and not yet collected (type-ahead). */
  private typeAhead = '';
  private onDigit: ((digit: string) => void) | undefined;
  /** The listen() waiting for a detected-speech result (its NLSML). */
  private onSpeech: ((result: string) => void) | undefined;
  /** fire_asr_events is set on the channel (once, before its first detect_speech). */
  private asrEvents = false;
  private readonly endListeners = new Set<() => void>();
  private recordings = 0;
  /** The whole-call recording (record_calls), once uuid_record accepted it. */
  private wholeCall?: { file: string };

  constructor(
    private readonly line: Line,
    private readonly request: OriginateRequest,
  ) {
    this.callId = request.callId;
    this.answered = new Promise((resolve) => (this.resolveAnswered = resolve));
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.startedAt = line.ctx.clock.now();
    line.follow(this.callId, this);
    void this.dial();
  }

  private async dial(): Promise<void> {
    let conn: EslConnection;
    try {
      conn = await this.line.connection();
    } catch {
      this.finish(this.local(Q850.NormalTemporaryFailure)); // the engine records it and retries per policy
      return;
    }
    // Connecting may have taken a while: the engine may no longer own the call (OriginateRequest.mayDial).
    const may = this.request.mayDial?.() ?? true;
    if (may !== true && !(await Promise.resolve(may).catch(() => false))) return this.finish(this.local(Q850.OriginatorCancel));
    if (this.state !== 'dialing') return; // hung up while connecting: never sent
    this.state = 'ringing';
    const jobUuid = crypto.randomUUID();
    this.jobPending = true;
    this.line.job(jobUuid, this);
    const reply = await conn.command(`bgapi ${originateCommand(this.request)}`, { 'Job-UUID': jobUuid }).catch(() => undefined);
    if (reply && !replyText(reply).startsWith('+OK')) this.finish(this.local(Q850.NormalTemporaryFailure));
    // No reply: the socket dropped, and dropping ends the call.
  }

  /** BACKGROUND_JOB of the originate: `+OK <uuid>` once answered, `-ERR <CAUSE>` when it failed. */
  onJob(result: string): void {
    this.jobPending = false;
    if (this.state === 'ended') return this.line.unfollow(this.callId);
    if (result.startsWith('+OK')) return this.up(null);
    const name = /^-ERR\s+([A-Z_]+)/.exec(result)?.[1] ?? 'NORMAL_TEMPORARY_FAILURE';
    this.finish(this.local(codeOf(name), name));
  }

  onEvent(name: string, h: Headers, body: string): void {
    if (name === 'CHANNEL_ANSWER') {
      // Answered after we gave up on it (hung up before the channel existed): end it now.
      if (this.state === 'ended') void this.line.current()?.api(`uuid_kill ${this.callId} ORIGINATOR_CANCEL`).catch(() => undefined);
      else this.up(channelTime(h, 'answer'));
    } else if (name === 'DTMF') {
      const digit = h['DTMF-Digit'] ?? '';
      if (this.onDigit) this.onDigit(digit);
      else this.typeAhead += digit;
    } else if (name === 'CHANNEL_EXECUTE_COMPLETE') {
      this.apps.get(h['Application-UUID'])?.(h);
    } else if (name === 'DETECTED_SPEECH') {
      // begin-speaking (barge-in) only says someone talks; the words come with detected-speech.
      if (h['Speech-Type'] === 'detected-speech') this.onSpeech?.(body);
    } else if (name === 'CHANNEL_HANGUP_COMPLETE') {
      this.line.unfollow(this.callId);
      this.finish(hangupOf(h, { startedAt: this.startedAt, answeredAt: this.answeredAt, now: this.line.ctx.clock.now() }));
    }
  }

  drop(): void {
    this.finish(this.local(Q850.NormalTemporaryFailure));
  }

  private local(cause: number, name?: string): Hangup {
    return localHangup(cause, this.startedAt, this.answeredAt, this.line.ctx.clock.now(), name);
  }

  private up(at: Date | null): void {
    if (this.state !== 'ringing' && this.state !== 'dialing') return;
    this.state = 'up';
    this.answeredAt = at ?? this.line.ctx.clock.now();
    // callmaxduration: FreeSWITCH cuts the call itself, so it ends as an answered ALLOTTED_TIMEOUT.
    const max = this.request.maxDurationSeconds;
    if (max > 0) void this.line.current()?.api(`sched_hangup +${max} ${this.callId} ALLOTTED_TIMEOUT`).catch(() => undefined);
    if (this.request.recordCall) void this.recordWholeCall();
    if (!this.request.amd) return this.resolveAnswered({ answered: true, amd: 'none' });
    // A hangup during detection settles `ended` first; `answered` still says answered ('unsure').
    void this.detect().then((amd) => this.resolveAnswered({ answered: true, amd }));
  }

  /**
   * record_calls: `uuid_record … start` into DATA_DIR/recordings/<callId>-call.wav with
   * RECORD_STEREO (the callee on one channel, what we send on the other); FreeSWITCH stops it at
   * hangup. Reported on the hangup only when FreeSWITCH accepted it.
   */
  private async recordWholeCall(): Promise<void> {
    const conn = this.line.current();
    if (!conn) return;
    const file = `recordings/${this.callId}-call.wav`;
    try {
      if (!this.line.settings.media_dir) fs.mkdirSync(path.join(this.line.ctx.dataDir, 'recordings'), { recursive: true });
      await conn.api(`uuid_setvar ${this.callId} RECORD_STEREO true`);
      const reply = await conn.api(`uuid_record ${this.callId} start ${path.join(this.line.mediaDir, file)}`);
      if (reply.trim().startsWith('+OK')) this.wholeCall = { file };
    } catch {
      // no recording: the call goes on without one
    }
  }

  /** mod_amd's `amd` listens to the greeting (up to its total_analysis_time), then sets amd_result. */
  private async detect(): Promise<AmdResult> {
    if (!(await this.line.amdLoaded())) return 'unsure';
    const done = await this.execute('amd', '');
    return AMD_RESULTS[done?.variable_amd_result ?? ''] ?? 'unsure';
  }

  private finish(hangup: Hangup): void {
    if (this.state === 'ended') return;
    const answered = this.state === 'up';
    this.state = 'ended';
    // While the originate is still out, keep following the uuid (onJob/onEvent clean up).
    if (!this.jobPending) this.line.unfollow(this.callId);
    for (const settle of [...this.apps.values()]) settle(null);
    for (const listener of [...this.endListeners]) listener();
    if (!answered) this.resolveAnswered({ answered: false, hangup });
    this.resolveEnded(answered && this.wholeCall ? { ...hangup, recording: { file: this.wholeCall.file, seconds: hangup.billsec } } : hangup);
  }

  /** Runs `listener` when the call ends; returns the function that removes it. */
  private whenEnded(listener: () => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Runs a dialplan application; its CHANNEL_EXECUTE_COMPLETE headers, or null if the call ends first. */
  private execute(app: string, arg: string): Promise<Headers | null> {
    const conn = this.line.current();
    if (this.state !== 'up' || !conn) return Promise.resolve(null);
    const appUuid = crypto.randomUUID();
    return new Promise((resolve) => {
      const settle = (h: Headers | null) => {
        this.apps.delete(appUuid);
        resolve(h);
      };
      this.apps.set(appUuid, settle);
      const headers = { 'call-command': 'execute', 'execute-app-name': app, 'execute-app-arg': arg, 'event-uuid': appUuid, 'event-lock': 'true' };
      conn.command(`sendmsg ${this.callId}`, headers).then(
        (reply) => !replyText(reply).startsWith('+OK') && settle(null),
        () => settle(null),
      );
    });
  }

  /** An audio file (relative to DATA_DIR) is played; else the text is spoken through mod_tts. */
  async play(media: { audioFile?: string | null; text?: string | null }): Promise<void> {
    this.typeAhead = ''; // keys pressed before this prompt answer nothing
    const { tts_engine: engine, tts_voice: voice } = this.line.settings;
    if (media.audioFile) await this.execute('playback', path.join(this.line.mediaDir, media.audioFile));
    else if (media.text) await this.execute('speak', `${engine}|${voice}|${media.text.replace(/\s+/g, ' ')}`);
  }

  /** Keys from DTMF events (those pressed during the prompt count), ending on '#', maxDigits or a silence. */
  collect(opts: { maxDigits: number; timeoutSeconds: number }): Promise<string | null> {
    if (this.state !== 'up') return Promise.resolve(null);
    const max = opts.maxDigits > 0 ? opts.maxDigits : Infinity;
    return new Promise((resolve) => {
      let digits = '';
      let timer: NodeJS.Timeout | undefined;
      let done = false;
      const settle = (value: string | null) => {
        done = true;
        clearTimeout(timer);
        stopWaiting();
        if (this.onDigit === take) this.onDigit = undefined;
        resolve(value);
      };
      const arm = () => {
        clearTimeout(timer);
        timer = setTimeout(() => settle(digits), Math.max(0, opts.timeoutSeconds) * 1000);
      };
      const take = (digit: string) => {
        if (digit === '#') return settle(digits);
        digits += digit;
        if (digits.length >= max) settle(digits);
        else arm();
      };
      const stopWaiting = this.whenEnded(() => settle(null));
      arm();
      const early = [...this.typeAhead];
      this.typeAhead = '';
      while (early.length && !done) take(early.shift() as string);
      this.typeAhead = early.join(''); // keys beyond this answer wait for the next
      if (!done) this.onDigit = take;
    });
  }

  /** `record` into DATA_DIR/recordings/<callId>-<n>.wav; ends at maxSeconds or 5 s of silence. */
  async record(opts: { maxSeconds: number }): Promise<{ file: string; seconds: number }> {
    if (this.state !== 'up') return { file: '', seconds: 0 };
    this.recordings += 1;
    const file = `recordings/${this.callId}-${this.recordings}.wav`;
    if (!this.line.settings.media_dir) fs.mkdirSync(path.join(this.line.ctx.dataDir, 'recordings'), { recursive: true });
    const from = Date.now();
    const done = await this.execute('record', `${path.join(this.line.mediaDir, file)} ${Math.max(1, opts.maxSeconds)} 200 5`);
    const told = Number(done?.variable_record_seconds);
    const seconds = Number.isFinite(told) ? told : Math.round((Date.now() - from) / 1000);
    return { file: seconds > 0 ? file : '', seconds };
  }

  /**
   * `detect_speech` with the settings' ASR engine and grammar: the words of its first
   * detected-speech result, '' when none comes within timeoutSeconds of its start (or it holds
   * no input), null when the call ends first. Recognition is stopped before returning.
   */
  async listen(opts: { timeoutSeconds: number }): Promise<string | null> {
    if (this.state !== 'up') return null;
    const { asr_engine: engine, asr_grammar: grammar } = this.line.settings;
    let stopWaiting: () => void = () => {};
    const heard = new Promise<string | null>((resolve) => {
      this.onSpeech = (result) => resolve(nlsmlText(result));
      stopWaiting = this.whenEnded(() => resolve(null));
    });
    try {
      // Without fire_asr_events the results are only queued on the session, never fired to us.
      if (!this.asrEvents) this.asrEvents = (await this.execute('set', 'fire_asr_events=true')) !== null;
      const started = await this.execute('detect_speech', `${engine} ${grammar} ${GRAMMAR_NAME}`);
      if (this.state !== 'up') return null;
      if (!started) return ''; // refused (the socket answered -ERR): nothing can be heard
      const words = await within(heard, Math.max(0, opts.timeoutSeconds) * 1000);
      return words === undefined ? '' : words;
    } finally {
      this.onSpeech = undefined;
      stopWaiting();
      if (this.state === 'up') await this.execute('detect_speech', 'stop');
    }
  }

  /** `bridge` to a B-leg with our uuid; its CHANNEL_HANGUP_COMPLETE is the leg's hangup. */
  async transfer(opts: { number: string; callerId: string; timeoutSeconds: number }): Promise<{ callId: string; hangup: Hangup }> {
    const legId = crypto.randomUUID();
    const now = () => this.line.ctx.clock.now();
    if (this.state !== 'up') return { callId: legId, hangup: localHangup(Q850.OriginatorCancel, now(), null, now()) };
    const leg = new Leg(now);
    this.line.follow(legId, leg);
    const vars = channelVars({ origination_uuid: legId, origination_caller_id_number: opts.callerId, originate_timeout: String(opts.timeoutSeconds) });
    const bridged = this.execute('bridge', `${vars}${dialString(this.request.gateway, opts.number)}`);
    // The bridge returns when the B-leg ends (or never started); its own event may come just after.
    const afterBridge = bridged.then(async (h) => {
      const told = await within(leg.ended, LEG_GRACE_MS);
      if (told) return told;
      const cause = [h?.variable_bridge_hangup_cause, h?.variable_originate_disposition].find((c) => c && c in CAUSES);
      const name = cause ?? (h ? 'NORMAL_TEMPORARY_FAILURE' : 'ORIGINATOR_CANCEL');
      return localHangup(codeOf(name), leg.startedAt, null, now(), name);
    });
    const hangup = await Promise.race([leg.ended, afterBridge]);
    this.line.unfollow(legId);
    return { callId: legId, hangup };
  }

  /** `conference <room>` or `fifo <queue> in`, until the caller leaves it or hangs up. */
  async bridge(opts: { conference?: string; queue?: string }): Promise<void> {
    if (opts.queue !== undefined) await this.execute('fifo', `${opts.queue} in`);
    else await this.execute('conference', opts.conference ?? '');
  }

  /** `uuid_kill`; without a cause NORMAL_CLEARING when up, ORIGINATOR_CANCEL while ringing. */
  async hangup(cause?: number): Promise<void> {
    if (this.state === 'ended') return;
    const code = cause ?? (this.state === 'up' ? Q850.NormalClearing : Q850.OriginatorCancel);
    const local = () => this.finish(this.local(code));
    const conn = this.line.current();
    if (this.state === 'dialing' || !conn) return local(); // not on FreeSWITCH (yet, or any more)
    const reply = await conn.api(`uuid_kill ${this.callId} ${nameOf(code)}`).catch(() => '-ERR connection closed');
    // No such channel: it is gone or not created yet (a late answer is killed in onEvent).
    if (!reply.startsWith('+OK')) local();
  }
}

/** A transfer's B-leg: only its hangup matters. */
class Leg implements Channel {
  private settle!: (hangup: Hangup) => void;
  readonly ended = new Promise<Hangup>((resolve) => (this.settle = resolve));
  readonly startedAt: Date;
  private answeredAt: Date | null = null;

  constructor(private readonly now: () => Date) {
    this.startedAt = now();
  }

  onEvent(name: string, h: Headers): void {
    if (name === 'CHANNEL_ANSWER') this.answeredAt = channelTime(h, 'answer') ?? this.now();
    if (name === 'CHANNEL_HANGUP_COMPLETE') this.settle(hangupOf(h, { startedAt: this.startedAt, answeredAt: this.answeredAt, now: this.now() }));
  }

  drop(): void {
    this.settle(localHangup(Q850.NormalTemporaryFailure, this.startedAt, this.answeredAt, this.now()));
  }
}
