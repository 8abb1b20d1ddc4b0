/**
 * The simulator driver (contract §7): a virtual carrier that answers, rings out, is busy or
 * fails at configured rates, with answering machines, ring and talk times, and callers who
 * press keys the IVR understands. Every draw comes from a stream seeded by (seed, call id), so
 * a run is reproducible whatever the order of calls; every wait goes through the injected
 * clock, so tests drive a call with a ManualClock. Durations are simulated seconds
 * (`time_scale` simulated seconds pass per clock second).
 */
import fs from 'node:fs';
import path from 'node:path';
import wavefilePkg from 'wavefile';
import { systemClock, type Clock } from '../../clock.ts';
import { causeName } from './causes.ts';
import {
  Q850,
  type AmdResult,
  type AnswerOutcome,
  type Call,
  type DriverContext,
  type Hangup,
  type OriginateRequest,
  type TelephonyDriver,
} from './driver.ts';
import { between, streamFor, type Random } from './random.ts';
import { simulatorSettings, type SimulatorSettings } from './simulator-settings.ts';

export { simulatorDefaults, simulatorSettings, type SimulatorSettings } from './simulator-settings.ts';

/** Causes of calls that neither answer, ring out nor are busy, picked by the call's draw. */
const { WaveFile } = wavefilePkg;

const FAILURES = [Q850.Congestion, Q850.CallRejected, Q850.NormalTemporaryFailure] as const;
/** Busy and failed calls end after at most this much ringing (a carrier answers them quickly). */
const QUICK_FAIL_MS = 1000;
/** Simulated time of a prompt without text (an audio file), and speaking speed for text. */
const AUDIO_MS = 3000;
const MS_PER_CHARACTER = 60;
/** How long a simulated caller thinks before pressing keys, speaking, or leaving a message. */
const THINK_MS = 1000;
const SPEAK_MS = 2000;
const MESSAGE_MS = 5000;

/** What the driver shares with its calls. */
interface Line {
  settings: SimulatorSettings;
  clock: Clock;
  dataDir: string;
  track(call: SimulatedCall): void;
  untrack(call: SimulatedCall): void;
}

/** A call's fate, drawn once when it is placed (always the same draws in the same order). */
interface Plan {
  outcome: 'answer' | 'busy' | 'noanswer' | 'fail';
  failCause: number;
  ringMs: number;
  talkMs: number;
  machine: boolean;
}

function planCall(settings: SimulatorSettings, random: Random): Plan {
  const draw = random();
  const ringMs = Math.round(between(random, settings.ring_seconds) * 1000);
  const talkMs = Math.round(between(random, settings.talk_seconds) * 1000);
  const machine = random() < settings.machine_rate;
  const failCause = FAILURES[Math.floor(random() * FAILURES.length)];
  const { answer_rate: answer, busy_rate: busy, noanswer_rate: noanswer } = settings;
  const outcome =
    draw < answer ? 'answer' : draw < answer + busy ? 'busy' : draw < answer + busy + noanswer ? 'noanswer' : 'fail';
  return { outcome, failCause, ringMs, talkMs, machine };
}

export class SimulatorDriver implements TelephonyDriver {
  readonly name = 'simulator';
  private readonly calls = new Set<SimulatedCall>();
  private readonly line: Line;

  /** Throws when the settings are invalid (the gateway resource checks them before). */
  constructor(settings: unknown, ctx: DriverContext) {
    const checked = simulatorSettings(settings);
    if (!checked.ok) throw new Error(`invalid simulator settings: ${checked.errors.join(' ')}`);
    this.line = {
      settings: checked.value,
      clock: ctx.clock,
      dataDir: ctx.dataDir,
      track: (call) => this.calls.add(call),
      untrack: (call) => this.calls.delete(call),
    };
  }

  /** Calls in progress (ringing or answered). */
  get inProgress(): number {
    return this.calls.size;
  }

  originate(request: OriginateRequest): Call {
    return new SimulatedCall(this.line, request);
  }

  async close(): Promise<void> {
    const calls = [...this.calls];
    await Promise.all(calls.map((call) => call.hangup()));
  }
}

class SimulatedCall implements Call {
  readonly callId: string;
  readonly answered: Promise<AnswerOutcome>;
  readonly ended: Promise<Hangup>;
  private resolveAnswered!: (outcome: AnswerOutcome) => void;
  private resolveEnded!: (hangup: Hangup) => void;
  private resolveGone!: () => void;
  /** Settles when the call ends: every wait races it, so pending commands return at once. */
  private readonly gone: Promise<void>;
  private state: 'ringing' | 'up' | 'ended' = 'ringing';
  private readonly random: Random;
  private readonly plan: Plan;
  private readonly startMs: number;
  private answerMs: number | null = null;
  private readonly timers = new Set<NodeJS.Timeout>();
  private keysUsed = 0;
  private legs = 0;

  constructor(
    private readonly line: Line,
    private readonly request: OriginateRequest,
  ) {
    this.callId = request.callId;
    this.answered = new Promise((resolve) => (this.resolveAnswered = resolve));
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    this.gone = new Promise((resolve) => (this.resolveGone = resolve));
    this.random = streamFor(line.settings.seed, request.callId);
    this.plan = planCall(line.settings, this.random);
    this.startMs = line.clock.now().getTime();
    line.track(this);
    void this.run();
  }

  get isUp(): boolean {
    return this.state === 'up';
  }

  /** Read through a getter: the state changes while a wait is pending. */
  private get isOn(): boolean {
    return this.state !== 'ended';
  }

  private async run(): Promise<void> {
    const { plan, request } = this;
    const timeoutMs = Math.max(0, request.timeoutSeconds * 1000);
    if (plan.outcome !== 'answer' || plan.ringMs > timeoutMs) {
      const rings = plan.outcome === 'busy' || plan.outcome === 'fail';
      const ms = rings ? Math.min(plan.ringMs, QUICK_FAIL_MS, timeoutMs) : timeoutMs;
      const cause = plan.outcome === 'busy' ? Q850.UserBusy : plan.outcome === 'fail' ? plan.failCause : Q850.NoAnswer;
      if (await this.wait(ms)) this.finish(cause);
      return;
    }
    if (!(await this.wait(plan.ringMs))) return;
    this.state = 'up';
    this.answerMs = this.elapsedMs();
    const amd: AmdResult = request.amd ? (plan.machine ? 'machine' : 'person') : 'none';
    this.resolveAnswered({ answered: true, amd });
    // The caller leaves after the talk time, unless callmaxduration cuts the call first.
    const maxMs = request.maxDurationSeconds > 0 ? request.maxDurationSeconds * 1000 : Infinity;
    const cut = maxMs < plan.talkMs;
    if (await this.wait(cut ? maxMs : plan.talkMs)) this.finish(cut ? Q850.AllottedTimeout : Q850.NormalClearing);
  }

  async play(media: { audioFile?: string | null; text?: string | null }): Promise<void> {
    const ms = media.text ? Math.max(1000, media.text.length * MS_PER_CHARACTER) : AUDIO_MS;
    await this.wait(ms);
  }

  async collect(opts: { maxDigits: number; timeoutSeconds: number }): Promise<string | null> {
    if (!this.isUp) return null;
    const keys = this.nextKeys(opts.maxDigits > 0 ? opts.maxDigits : Infinity);
    const waited = keys ? Math.min(THINK_MS, opts.timeoutSeconds * 1000) : opts.timeoutSeconds * 1000;
    return (await this.wait(waited)) ? keys : null;
  }

  async record(opts: { maxSeconds: number }): Promise<{ file: string; seconds: number }> {
    const from = this.elapsedMs();
    await this.wait(Math.min(MESSAGE_MS, Math.max(0, opts.maxSeconds) * 1000));
    // Nothing is written: a simulated caller has no voice (the interface allows '').
    return { file: '', seconds: Math.round((this.elapsedMs() - from) / 1000) };
  }

  async listen(opts: { timeoutSeconds: number }): Promise<string | null> {
    if (!this.isUp) return null;
    const words = this.line.settings.dtmf === 'random' ? this.randomKey() || 'yes' : this.nextKeys(Infinity);
    const waited = words ? Math.min(SPEAK_MS, opts.timeoutSeconds * 1000) : opts.timeoutSeconds * 1000;
    return (await this.wait(waited)) ? words : null;
  }

  async transfer(opts: { number: string; callerId: string; timeoutSeconds: number }): Promise<{ callId: string; hangup: Hangup }> {
    this.legs += 1;
    const leg = new SimulatedCall(this.line, {
      ...this.request,
      callId: `${this.callId}-b${this.legs}`,
      to: opts.number,
      callerId: opts.callerId,
      timeoutSeconds: opts.timeoutSeconds,
      maxDurationSeconds: 0,
      amd: false,
      recordCall: false,
    });
    // The B-leg cannot outlive the A-leg.
    void this.gone.then(() => leg.hangup());
    return { callId: leg.callId, hangup: await leg.ended };
  }

  async bridge(): Promise<void> {
    if (this.state !== 'ended') await this.gone;
  }

  /** Without a cause: NORMAL_CLEARING on an answered call, ORIGINATOR_CANCEL on a ringing one. */
  async hangup(cause?: number): Promise<void> {
    this.finish(cause ?? (this.isUp ? Q850.NormalClearing : Q850.OriginatorCancel));
  }

  /** Waits `ms` of simulated time or until the call ends; true while the call is still on. */
  private async wait(ms: number): Promise<boolean> {
    if (this.state === 'ended') return false;
    if (ms > 0) await Promise.race([this.sleep(ms / this.line.settings.time_scale), this.gone]);
    return this.isOn;
  }

  /** The real clock's timers are cleared when the call ends, so none outlives it. */
  private sleep(ms: number): Promise<void> {
    if (this.line.clock !== systemClock) return this.line.clock.sleep(ms);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        resolve();
      }, ms);
      this.timers.add(timer);
    });
  }

  private elapsedMs(): number {
    return (this.line.clock.now().getTime() - this.startMs) * this.line.settings.time_scale;
  }

  /** Random mode: one of the IVR's keys (or a digit); fixed mode: the next keys, up to `#`. */
  private nextKeys(maxDigits: number): string {
    if (this.plan.machine) return ''; // answering machines press nothing
    const { dtmf } = this.line.settings;
    if (dtmf === 'random') return (this.randomKey() || String(Math.floor(this.random() * 10))).slice(0, maxDigits);
    let keys = '';
    while (this.keysUsed < dtmf.length && keys.length < maxDigits) {
      const key = dtmf[this.keysUsed++];
      if (key === '#') break;
      keys += key;
    }
    if (keys.length === maxDigits && dtmf[this.keysUsed] === '#') this.keysUsed += 1; // ends this entry
    return keys;
  }

  private randomKey(): string {
    const keys = this.request.expectedKeys ?? [];
    return keys.length ? keys[Math.floor(this.random() * keys.length)] : '';
  }

  private finish(cause: number): void {
    if (this.state === 'ended') return;
    const answered = this.state === 'up';
    this.state = 'ended';
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    const hangup = this.hangupRecord(cause);
    if (answered && this.request.recordCall) hangup.recording = this.writeRecording(hangup.billsec);
    this.line.untrack(this);
    this.resolveGone();
    if (!answered) this.resolveAnswered({ answered: false, hangup });
    this.resolveEnded(hangup);
  }

  /**
   * record_calls: a simulated caller has no voice, so the "recording" is a generated WAV (a quiet
   * 440 Hz tone, 8 kHz mono, at most 2 s whatever the call's length) written to
   * DATA_DIR/recordings/<callId>-call.wav, so that the API can list and serve it end to end.
   */
  private writeRecording(billsec: number): { file: string; seconds: number } | undefined {
    const seconds = Math.min(2, Math.max(1, billsec));
    const samples = Int16Array.from({ length: seconds * 8000 }, (_, i) => Math.round(2000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
    const wav = new WaveFile();
    wav.fromScratch(1, 8000, '16', samples);
    const file = path.join('recordings', `${this.callId}-call.wav`);
    try {
      fs.mkdirSync(path.join(this.line.dataDir, 'recordings'), { recursive: true });
      fs.writeFileSync(path.join(this.line.dataDir, file), wav.toBuffer());
    } catch {
      return undefined; // an unwritable DATA_DIR loses the recording, not the call
    }
    return { file, seconds };
  }

  private hangupRecord(cause: number): Hangup {
    const endMs = this.elapsedMs();
    const at = (offset: number) => new Date(this.startMs + offset);
    return {
      cause,
      causeName: causeName(cause),
      startedAt: at(0),
      answeredAt: this.answerMs === null ? null : at(this.answerMs),
      endedAt: at(endMs),
      duration: Math.round(endMs / 1000),
      billsec: this.answerMs === null ? 0 : Math.round((endMs - this.answerMs) / 1000),
    };
  }
}
