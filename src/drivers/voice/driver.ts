/**
 * The telephony driver interface (contract §7): the engine sees only this. A driver places a
 * call with its variables, tells of answer (with the AMD result), DTMF and hangup (Q.850 cause,
 * durations), and carries out the IVR's commands on an answered call. Each real driver lives
 * next to its fake (simulator.ts).
 */
import type { Clock } from '../../clock.ts';

/** Q.850 causes the engine reads (contract §4 dispositions). */
export const Q850 = {
  NormalClearing: 16,
  UserBusy: 17,
  NoUserResponse: 18,
  NoAnswer: 19,
  CallRejected: 21,
  NormalTemporaryFailure: 41,
  Congestion: 34,
  SwitchingEquipmentCongestion: 42,
  OriginatorCancel: 487,
  /** Used when a call is cut at callmaxduration (FreeSWITCH ALLOTTED_TIMEOUT). */
  AllottedTimeout: 602,
} as const;

export type AmdResult = 'person' | 'machine' | 'unsure' | 'none';

export interface OriginateRequest {
  /** Our id for the A-leg (becomes the CDR's callid). */
  callId: string;
  /** The number to dial, after the gateway's removeprefix/addprefix. */
  to: string;
  callerId: string;
  callerName: string;
  /** The gateway's row: driver settings, dial-string prefix, originate_dial_string. */
  gateway: { id: number; name: string; gateways: string; originate_dial_string: string; settings: Record<string, unknown> };
  /** Ring for at most this long, then NO_ANSWER (19). */
  timeoutSeconds: number;
  /** Cut an answered call after this long (ALLOTTED_TIMEOUT); still an answered call. */
  maxDurationSeconds: number;
  /** Answering-machine detection wanted (campaign `voicemail`). */
  amd: boolean;
  /**
   * Record the whole call once answered (campaign `record_calls`), both legs where the driver
   * can; the file is reported on the Hangup's `recording`.
   */
  recordCall?: boolean;
  /** Channel variables: campaign, subscriber, contact fields, additional_vars … */
  variables: Record<string, string>;
  /**
   * For simulated callers: the keys the survey's branches accept, so a simulated caller can
   * press something the IVR understands ('random' dtmf setting).
   */
  expectedKeys?: string[];
  /**
   * Asked just before the call goes out, after whatever the driver waited for first (the sip
   * driver's CPS queue, FreeSWITCH's connection): false means it is no longer the engine's to
   * place (the engine fell silent meanwhile, and another took it for dead and closed the call),
   * and it ends unsent. `true` at once when nothing changed. Absent: always placed.
   */
  mayDial?: () => boolean | Promise<boolean>;
}

export interface Hangup {
  /** Q.850 cause code. */
  cause: number;
  /** The cause's name, e.g. NORMAL_CLEARING, USER_BUSY, NO_ANSWER, ALLOTTED_TIMEOUT. */
  causeName: string;
  startedAt: Date;
  answeredAt: Date | null;
  endedAt: Date;
  /** Seconds from start to end. */
  duration: number;
  /** Seconds from answer to end (0 when not answered). */
  billsec: number;
  /** The whole-call recording (OriginateRequest `recordCall`): a file under DATA_DIR, and its seconds. */
  recording?: { file: string; seconds: number };
}

export type AnswerOutcome = { answered: true; amd: AmdResult } | { answered: false; hangup: Hangup };

/** A call in progress. Every method may be called only after `answered` said answered:true. */
export interface Call {
  readonly callId: string;
  /** Settles once: answered (with AMD), or the hangup of a call that never answered. */
  readonly answered: Promise<AnswerOutcome>;
  /** Settles when the call ends, whoever ends it. */
  readonly ended: Promise<Hangup>;
  /** Plays an audio file (path under DATA_DIR) or speaks a text; resolves when done. */
  play(media: { audioFile?: string | null; text?: string | null }): Promise<void>;
  /**
   * Collects up to `maxDigits` keys, ending on `#` or after `timeoutSeconds` without a key.
   * Resolves with the digits, '' on timeout, or null when the caller hung up.
   */
  collect(opts: { maxDigits: number; timeoutSeconds: number }): Promise<string | null>;
  /** Records the caller for at most `maxSeconds`; resolves with the file written (or '' when none). */
  record(opts: { maxSeconds: number }): Promise<{ file: string; seconds: number }>;
  /** Recognises the caller's speech; resolves with the words ('' when none, null on hangup). */
  listen(opts: { timeoutSeconds: number }): Promise<string | null>;
  /** Bridges to `number` as a B-leg; resolves with the B-leg's id and hangup when it ends. */
  transfer(opts: { number: string; callerId: string; timeoutSeconds: number }): Promise<{ callId: string; hangup: Hangup }>;
  /**
   * Listens for a voicemail greeting's beep for at most `maxSeconds`; true when one was heard and
   * is over (amd_behavior 3 plays the voicemail audio then). Optional: a driver without a tone
   * detector leaves it out and the engine plays at once.
   */
  waitForBeep?(maxSeconds: number): Promise<boolean>;
  /** Puts the call into a conference room (or a queue, with `queue`) until it ends. */
  bridge(opts: { conference?: string; queue?: string }): Promise<void>;
  /** Hangs up (NORMAL_CLEARING unless told otherwise). */
  hangup(cause?: number): Promise<void>;
}

export interface DriverContext {
  clock: Clock;
  /** Absolute directory for recordings and media (DATA_DIR). */
  dataDir: string;
}

export interface TelephonyDriver {
  readonly name: string;
  originate(request: OriginateRequest): Call;
  /**
   * Until when the carrier asked not to be sent calls (SIP 503 Retry-After on every proxy);
   * the dialer claims no call for this gateway before then. Absent or null = no pause.
   */
  pausedUntil?(): Date | null;
  /** Ends every call in progress (ABORT, shutdown) and releases connections. */
  close(): Promise<void>;
}
