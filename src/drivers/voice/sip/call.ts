/**
 * One call through the sip driver (the engine's Call): the INVITE (invite.ts), then the dialog's
 * requests both ways, and the IVR's commands carried out on the media session. Any method
 * called once the call is over answers as driver.ts says (null, '' …) without touching the wire.
 */
import crypto from 'node:crypto';
import path from 'node:path';
import type { SipMessage } from 'sip';
import type { AmdResult, AnswerOutcome, Call, Hangup, OriginateRequest } from '../driver.ts';
import { Q850 } from '../driver.ts';
import { causeOfStatus, sipCauseName } from './causes.ts';
import type { Dialog } from './dialog.ts';
import type { SipDriver } from './driver.ts';
import { type InviteResult, OutgoingInvite } from './invite.ts';
import type { MediaSession } from './media/index.ts';
import { offerSdp, readAnswer } from './sdp.ts';
import type { Reply } from './stack.ts';
import { bridgeTransfer, referTransfer, type TransferResult } from './transfer.ts';

/** A digit of an INFO body: application/dtmf-relay (`Signal=5`) or application/dtmf (`5`). */
export function infoDigit(body: string): string | null {
  const m = /^\s*Signal\s*=\s*([0-9*#A-D])/im.exec(body) ?? /^\s*([0-9*#A-D])\s*$/i.exec(body);
  return m ? m[1].toUpperCase() : null;
}

export class SipCall implements Call {
  readonly callId: string;
  readonly answered: Promise<AnswerOutcome>;
  readonly ended: Promise<Hangup>;
  media?: MediaSession;
  private resolveAnswered!: (a: AnswerOutcome) => void;
  private resolveEnded!: (h: Hangup) => void;
  private state: 'setup' | 'up' | 'over' = 'setup';
  private readonly startedAt: Date;
  private answeredAt: Date | null = null;
  private invite?: OutgoingInvite;
  private dialog?: Dialog;
  private sdp = '';
  private contact = '';
  /** Why we cancelled: at calltimeout (NO_ANSWER 19) or on hangup() (ORIGINATOR_CANCEL 487). */
  private cancelledFor: 'timeout' | 'hangup' | null = null;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly digits: string[] = [];
  private readonly digitWaiters = new Set<() => void>();
  private recordings = 0;
  /** record_calls: the whole call's recording, from the answer to the end. */
  private wholeCall: { write(file: string): Promise<{ file: string; seconds: number }> } | undefined;
  /** NOTIFY sipfrag status lines of a REFER, for the transfer in progress. */
  readonly notifies = new Set<(status: number) => void>();

  constructor(
    private readonly core: SipDriver,
    readonly request: OriginateRequest & { uri?: string },
  ) {
    this.callId = request.callId;
    this.startedAt = core.now();
    this.answered = new Promise((resolve) => (this.resolveAnswered = resolve));
    this.ended = new Promise((resolve) => (this.resolveEnded = resolve));
    void this.run().catch((err: Error) => {
      core.log(`call ${this.callId}: ${err.message}`);
      this.finish(Q850.NormalTemporaryFailure, 'DRIVER_ERROR');
    });
  }

  private async run(): Promise<void> {
    const stack = await this.core.stack();
    this.contact = stack.contactUri();
    this.media = await this.core.openMedia();
    if (this.state === 'over') return this.media.close();
    this.media.dtmf.on((digit) => this.onDigit(digit));
    this.sdp = offerSdp(this.media.local, this.core.settings.codecs, Date.now() % 1e9);
    stack.onDialog(this.callId, (m, reply) => this.onDialogMessage(m, reply));
    // The ring time counts from the INVITE, not from the wait in the CPS queue.
    const ring = () => this.timers.push(setTimeout(() => this.cancel('timeout'), this.request.timeoutSeconds * 1000));
    this.invite = new OutgoingInvite(this.core.inviteDeps(stack, this.request.timeoutSeconds * 1000, ring, this.request.mayDial), {
      callId: this.callId,
      user: this.request.to,
      requestUri: this.request.uri,
      from: this.core.fromHeader(this.request.callerId, this.request.callerName),
      sdp: this.sdp,
      headers: { 'p-asserted-identity': this.core.identity(this.request.callerId, this.request.callerName) },
      credentials: this.core.credentials(),
    });
    const result = await this.invite.done;
    if (result.answered) return this.onAnswer(result.dialog, result.sdp);
    this.finish(this.failureCause(result), undefined);
  }

  private failureCause(r: Extract<InviteResult, { answered: false }>): number {
    if (this.cancelledFor === 'timeout') return Q850.NoAnswer;
    if (this.cancelledFor === 'hangup') return Q850.OriginatorCancel;
    return r.cause ?? (r.status ? causeOfStatus(r.status) : Q850.NormalTemporaryFailure);
  }

  private cancel(why: 'timeout' | 'hangup'): void {
    if (this.state !== 'setup' || this.cancelledFor) return;
    this.cancelledFor = why;
    if (this.invite) this.invite.cancel();
    else this.finish(why === 'timeout' ? Q850.NoAnswer : Q850.OriginatorCancel);
  }

  private async onAnswer(dialog: Dialog, sdp: string): Promise<void> {
    this.dialog = dialog;
    this.clearTimers();
    if (this.state === 'over') return void this.sendBye(Q850.NormalClearing);
    const media = readAnswer(sdp, this.core.settings.codecs);
    if (!media) {
      // A 200 without a usable answer cannot carry the survey: end it, as not answered.
      void this.sendBye(88);
      return this.finish(88, 'INCOMPATIBLE_DESTINATION');
    }
    this.media?.start(media.remote, { payloadType: media.payloadType, telephoneEvent: media.telephoneEvent });
    this.answeredAt = this.core.now();
    if (this.request.recordCall && this.media) this.wholeCall = this.media.recordCall();
    this.state = 'up';
    if (this.request.maxDurationSeconds > 0) {
      this.timers.push(setTimeout(() => void this.hangup(Q850.AllottedTimeout), this.request.maxDurationSeconds * 1000));
    }
    if (this.cancelledFor === 'hangup') return void this.hangup();
    let amd: AmdResult = 'none';
    if (this.request.amd && this.media) amd = await this.media.detectMachine(this.core.amdParams).catch(() => 'unsure' as const);
    this.resolveAnswered({ answered: true, amd });
  }

  private onDialogMessage(m: SipMessage, reply?: Reply): void {
    if (!m.method) return void this.dialog?.ack().catch(() => undefined); // a retransmitted 2xx
    if (!reply) return; // ACK
    switch (m.method) {
      case 'BYE': {
        reply(200, 'OK');
        const cause = /cause=(\d+)/.exec(String(m.headers.reason ?? ''));
        return this.finish(cause ? Number(cause[1]) : Q850.NormalClearing);
      }
      case 'INFO': {
        const digit = infoDigit(m.content ?? '');
        reply(200, 'OK');
        if (digit) this.media?.injectDtmf(digit);
        return;
      }
      case 'NOTIFY': {
        reply(200, 'OK');
        const frag = /SIP\/2\.0\s+(\d{3})/.exec(m.content ?? '');
        if (frag) for (const listener of this.notifies) listener(Number(frag[1]));
        return;
      }
      case 'INVITE': // a session refresh or hold: we keep the session we offered
        return reply(200, 'OK', { headers: { contact: [{ uri: this.contact, params: {} }], 'content-type': 'application/sdp' }, content: this.sdp });
      case 'OPTIONS':
      case 'UPDATE':
        return reply(200, 'OK');
      default:
        return reply(501, 'Not Implemented');
    }
  }

  /** Settles the call once: a hangup with this cause (answered or not). */
  private finish(cause: number, name?: string): void {
    if (this.endedOnce) return;
    this.endedOnce = true;
    this.state = 'over';
    this.clearTimers();
    const endedAt = this.core.now();
    const hangup: Hangup = {
      cause,
      causeName: name ?? sipCauseName(cause),
      startedAt: this.startedAt,
      answeredAt: this.answeredAt,
      endedAt,
      duration: Math.round((endedAt.getTime() - this.startedAt.getTime()) / 1000),
      billsec: this.answeredAt ? Math.round((endedAt.getTime() - this.answeredAt.getTime()) / 1000) : 0,
    };
    if (!this.answeredAt) this.resolveAnswered({ answered: false, hangup });
    else this.resolveAnswered({ answered: true, amd: 'none' }); // no-op when AMD already answered
    if (this.wholeCall) {
      // The WAV is written before the hangup is told, so the outcome can list it.
      const file = path.join('recordings', `${this.callId}-call.wav`);
      void this.wholeCall.write(path.join(this.core.dataDir, file)).then(
        (r) => this.resolveEnded(r.file ? { ...hangup, recording: { file, seconds: r.seconds } } : hangup),
        () => this.resolveEnded(hangup),
      );
    } else {
      this.resolveEnded(hangup);
    }
    this.media?.close();
    for (const wake of this.digitWaiters) wake();
    void this.core.stack().then((s) => setTimeout(() => s.offDialog(this.callId), 32_000).unref());
    this.core.forget(this);
  }

  private endedOnce = false;

  private clearTimers(): void {
    for (const t of this.timers.splice(0)) clearTimeout(t);
  }

  private sendBye(cause: number): Promise<void> {
    const bye = this.dialog?.request('BYE', { reason: `Q.850;cause=${cause};text="${sipCauseName(cause)}"` }).then(
      () => undefined,
      () => undefined,
    );
    return bye ? this.core.pending(bye) : Promise.resolve();
  }

  get isOver(): boolean {
    return this.state === 'over';
  }

  async play(media: { audioFile?: string | null; text?: string | null }): Promise<void> {
    if (this.state !== 'up' || !this.media) return;
    await Promise.race([this.media.play(media, { dataDir: this.core.dataDir }), this.ended]);
  }

  /** The greeting's beep (media/tone.ts), heard and over within `maxSeconds`; false on timeout or hangup. */
  async waitForBeep(maxSeconds: number): Promise<boolean> {
    if (this.state !== 'up' || !this.media) return false;
    return this.media.waitForBeep(maxSeconds);
  }

  async collect(opts: { maxDigits: number; timeoutSeconds: number }): Promise<string | null> {
    let got = '';
    while (this.state === 'up' && got.length < opts.maxDigits) {
      const digit = this.digits.shift() ?? (await this.nextDigit(opts.timeoutSeconds * 1000));
      if (digit === null) break;
      if (digit === '#') break;
      got += digit;
    }
    return this.state === 'over' && got === '' ? null : got;
  }

  /** The next key pressed within `ms`, or null on timeout or hangup. */
  private nextDigit(ms: number): Promise<string | null> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.digitWaiters.delete(done);
        resolve(this.digits.shift() ?? null);
      };
      const timer = setTimeout(done, ms);
      this.digitWaiters.add(done);
    });
  }

  /** Keys arrive from the media session (RFC 4733, and INFO through injectDtmf) into a buffer. */
  onDigit(digit: string): void {
    this.digits.push(digit);
    for (const wake of [...this.digitWaiters]) wake();
  }

  async record(opts: { maxSeconds: number }): Promise<{ file: string; seconds: number }> {
    if (this.state !== 'up' || !this.media) return { file: '', seconds: 0 };
    const file = path.join('recordings', `${this.callId}-${++this.recordings}.wav`);
    const done = await this.media.record({ file: path.join(this.core.dataDir, file), maxSeconds: opts.maxSeconds, silenceSeconds: 5 });
    return { file, seconds: done.seconds };
  }

  /** No speech recognition in this driver: an empty answer (null once the caller has gone). */
  async listen(): Promise<string | null> {
    return this.state === 'up' ? '' : null;
  }

  async transfer(opts: { number: string; callerId: string; timeoutSeconds: number }): Promise<{ callId: string; hangup: Hangup }> {
    return this.transferTo({ number: opts.number, callerId: opts.callerId, timeoutSeconds: opts.timeoutSeconds });
  }

  /**
   * Conference and queue need a media server: the call is transferred (by `transfer_mode`) to the
   * URI set for them, the name URI-escaped (a queue may be called "Customer Care"). Returns when
   * the transfer is over, as FreeSWITCH's conference and fifo do when the caller leaves: a REFER
   * done has ended our leg; a bridged room or queue that hung up (or a transfer that failed)
   * leaves the caller to the rest of the survey, not to silence.
   */
  async bridge(opts: { conference?: string; queue?: string }): Promise<void> {
    const name = opts.queue ?? opts.conference ?? '';
    const template = opts.queue !== undefined ? this.core.settings.queue_uri : this.core.settings.conference_uri;
    const uri = name.startsWith('sip:') ? name : template ? template.replaceAll('{name}', encodeURIComponent(name)) : '';
    if (this.state !== 'up' || !uri) return;
    await this.transferTo({ uri, callerId: this.request.callerId, timeoutSeconds: this.request.timeoutSeconds });
  }

  private async transferTo(target: { number?: string; uri?: string; callerId: string; timeoutSeconds: number }): Promise<TransferResult> {
    const callId = crypto.randomUUID();
    if (this.state !== 'up' || !this.dialog) {
      const at = this.core.now();
      return { callId, hangup: { cause: Q850.NormalClearing, causeName: 'NORMAL_CLEARING', startedAt: at, answeredAt: null, endedAt: at, duration: 0, billsec: 0 } };
    }
    if (this.core.settings.transfer_mode === 'bridge') return bridgeTransfer(this.core, this, { ...target, callId });
    return referTransfer(this.core, this, this.dialog, { ...target, callId });
  }

  async hangup(cause: number = Q850.NormalClearing): Promise<void> {
    if (this.state === 'setup') this.cancel('hangup');
    else if (this.state === 'up') {
      this.finish(cause);
      void this.sendBye(cause);
    }
    await this.ended;
  }
}
