/**
 * A telephony driver that follows a script per dialled number, in zero time: the engine tests'
 * deterministic carrier (the simulator, drivers/simulator.ts, is the random one). It records
 * what the engine asked of each call so tests can assert on it.
 */
import type { Clock } from '../../clock.ts';
import type { AmdResult, AnswerOutcome, Call, Hangup, OriginateRequest, TelephonyDriver } from './driver.ts';

export interface CallScript {
  /** Not answered with this Q.850 cause (17 busy, 19 no answer …); absent = answered. */
  failCause?: number;
  amd?: AmdResult;
  /** What each collect() returns in turn (and listen(), without `speech`); '' (timeout) once used up. */
  keys?: string[];
  /** What each listen() (speech recognition) returns in turn; '' once used up. */
  speech?: string[];
  /** Seconds each record() reports (3 when absent); 0 = nothing recorded (file ''). */
  recordSeconds?: number;
  /** billsec reported at hangup. */
  billsec?: number;
  /** Seconds of this driver's clock each transfer stays up (0 when absent): transfers at once (max_xfer). */
  transferSeconds?: number;
  /** Stay up until hung up by the engine (ABORT tests): answered stays pending until released. */
  hold?: boolean;
}

export interface ScriptedCall {
  request: OriginateRequest;
  /**
   * Every command the engine gave, in order: "play:…", "collect", "listen", "record:<maxSeconds>",
   * "transfer:…", "queue:…", "conference:…", "hangup:16" …
   */
  log: string[];
}

const causeNames: Record<number, string> = { 16: 'NORMAL_CLEARING', 17: 'USER_BUSY', 19: 'NO_ANSWER', 21: 'CALL_REJECTED', 487: 'ORIGINATOR_CANCEL' };

export class ScriptedDriver implements TelephonyDriver {
  readonly name = 'scripted';
  readonly calls: ScriptedCall[] = [];
  private readonly clock: Clock;
  private readonly scripts: (to: string) => CallScript;

  constructor(clock: Clock, scripts: (to: string) => CallScript = () => ({})) {
    this.clock = clock;
    this.scripts = scripts;
  }

  originate(request: OriginateRequest): Call {
    const script = this.scripts(request.to);
    const record: ScriptedCall = { request, log: [] };
    this.calls.push(record);
    const startedAt = this.clock.now();
    const hangupOf = (cause: number, answered: boolean): Hangup => ({
      cause,
      causeName: causeNames[cause] ?? 'NORMAL_TEMPORARY_FAILURE',
      startedAt,
      answeredAt: answered ? startedAt : null,
      endedAt: this.clock.now(),
      duration: answered ? (script.billsec ?? 0) : 0,
      billsec: answered ? (script.billsec ?? 0) : 0,
      // record_calls: the file is named, not written (the simulator writes one).
      ...(answered && request.recordCall ? { recording: { file: `recordings/${request.callId}-call.wav`, seconds: script.billsec ?? 0 } } : {}),
    });
    let end!: (h: Hangup) => void;
    const ended = new Promise<Hangup>((resolve) => (end = resolve));
    let done = false;
    const finish = (cause: number, answered: boolean) => {
      if (done) return;
      done = true;
      record.log.push(`hangup:${cause}`);
      end(hangupOf(cause, answered));
    };
    let answered: Promise<AnswerOutcome>;
    if (script.failCause) {
      const h = hangupOf(script.failCause, false);
      done = true;
      end(h);
      answered = Promise.resolve({ answered: false, hangup: h });
    } else if (script.hold) {
      answered = ended.then((h) => ({ answered: false, hangup: h }));
    } else {
      answered = Promise.resolve({ answered: true, amd: script.amd ?? 'person' });
    }
    const keys = [...(script.keys ?? [])];
    const words = script.speech ? [...script.speech] : keys;
    const next = async (from: string[]) => (done ? null : (from.shift() ?? ''));
    const recordSeconds = script.recordSeconds ?? 3;
    return {
      callId: request.callId,
      answered,
      ended,
      play: async (m) => void record.log.push(`play:${m.audioFile ?? m.text ?? ''}`),
      collect: async () => (record.log.push('collect'), next(keys)),
      record: async (o) => {
        record.log.push(`record:${o.maxSeconds}`);
        return { file: recordSeconds > 0 ? `recordings/${request.callId}.wav` : '', seconds: recordSeconds };
      },
      listen: async () => (record.log.push('listen'), next(words)),
      transfer: async (o) => {
        record.log.push(`transfer:${o.number}`);
        if (script.transferSeconds) await this.clock.sleep(script.transferSeconds * 1000);
        return { callId: `${request.callId}-b`, hangup: { ...hangupOf(16, true), billsec: 12, duration: 15 } };
      },
      bridge: async (o) => void record.log.push(o.queue !== undefined ? `queue:${o.queue}` : `conference:${o.conference ?? ''}`),
      hangup: async (cause = 16) => finish(cause, !script.hold),
    };
  }

  async close(): Promise<void> {}
}
