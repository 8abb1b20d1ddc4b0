/**
 * A call's outcome (contract §5–§6), written in ONE transaction: the A-leg CDR (and a B-leg CDR
 * per transfer), billing (billed_duration, call_cost in SQL numeric, the owner's balance), the
 * survey's answers, the callrequest's status and the subscriber's (SENT/COMPLETED, or back to
 * PENDING for a retry, or FAIL when no attempt is left). Several outcomes may share that
 * transaction (`recordOutcomes`, set-based: one statement per table whatever their number), so
 * each outcome's writes still commit or roll back together. A call no longer CALLING when its
 * outcome comes (another engine took this one for dead and closed it as ENGINE_RESTART, then
 * retried its subscriber: recover.ts) is not written again: one CDR, one charge, one
 * call.completed a call. `OutcomeWriter` gathers the
 * outcomes of calls ending close together into such batches; when a batch fails, it writes its
 * outcomes one by one, so one bad outcome cannot take the others down.
 */
import type { SQL } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { AmdStatus, CallRequestStatus, LegType, RecordingKind, SubscriberStatus } from '../db/schema.ts';
import { type AmdResult, type Hangup, Q850 } from '../drivers/voice/driver.ts';
import type { SectionResult, TransferLeg } from './ivr.ts';
import { insertCallResults } from './store/call-results.ts';
import { countCallerIdOutcomes } from './store/callerids.ts';
import { settleCallrequests } from './store/callrequests.ts';
import { insertBilledLegs, type LegRow } from './store/cdrs.ts';
import { insertRecordings, type NewRecording } from './store/recordings.ts';
import { type SettledSubscriber, settleSubscribers } from './store/settle-subscribers.ts';
import { retryCauseOf } from '../campaign/retry-rules.ts';
import { isoTime } from '../http/present.ts';
import { databaseUnreachable, RETRY_FIRST_MS, RETRY_MAX_MS, rootMessage } from '../db/unreachable.ts';

/** Contract §4: the CDR disposition of a Q.850 cause. */
export function disposition(cause: number, answered: boolean): string {
  if (answered) return 'ANSWER'; // hitting callmaxduration is still an answered call
  switch (cause) {
    case Q850.NormalClearing:
      return 'ANSWER';
    case Q850.UserBusy:
      return 'BUSY';
    case Q850.NoAnswer:
      return 'NOANSWER';
    case Q850.CallRejected:
      return 'REJECTED';
    case Q850.OriginatorCancel:
      return 'CANCEL';
    case Q850.Congestion:
    case Q850.SwitchingEquipmentCongestion:
      return 'CONGESTION';
    default:
      return 'FAILED';
  }
}

/** Contract §6: billsec rounded up to the billing increment (0 = exact). */
export function billedDuration(billsec: number, increment: number): number {
  if (billsec <= 0) return 0;
  return increment > 0 ? Math.ceil(billsec / increment) * increment : billsec;
}

const amdStatus: Record<AmdResult, number> = {
  none: AmdStatus.NoDetect,
  person: AmdStatus.Person,
  machine: AmdStatus.Machine,
  unsure: AmdStatus.Unsure,
};

export interface CallOutcome {
  callrequestId: number;
  callUuid: string;
  campaignId: number;
  userId: number;
  subscriberId: number;
  contactId: number | null;
  phoneNumber: string;
  callerId: string;
  /** The caller id group's number shown (callerid-rotation.ts), counted on it; absent: none. */
  callerIdId?: number | null;
  hangup: Hangup;
  amd: AmdResult;
  results: SectionResult[];
  transfers: TransferLeg[];
  completed: boolean;
  /** A section asked for a callback this many minutes after the call (issue 16, item 8). */
  callbackMinutes?: number;
  /** A cause name for the callrequest, when it differs from the driver's (ENGINE_RESTART). */
  causeName?: string;
  /** Hung up by its engine's fence (engine.ts fenceTick): written as `fencedCause`, see subscriberRows. */
  fenced?: boolean;
}

/**
 * The cause of a call its engine's fence hung up (the database out of reach for too long): its
 * CDR is the call as it was, and its subscriber is retried as recovery would have retried it.
 */
export const fencedCause = 'ENGINE_FENCED';

/** The cause name the callrequest and the subscriber's reason give. */
const causeNameOf = (o: CallOutcome): string => (o.fenced ? fencedCause : (o.causeName ?? o.hangup.causeName));

/** The rows of one CDR leg, as the set-based insert reads them (jsonb_to_recordset). */
function legRow(o: CallOutcome, leg: { callid: string; phone: string; hangup: Hangup; type: number; amd: number }, increment: number): LegRow {
  const answered = leg.hangup.answeredAt !== null;
  const billsec = answered ? leg.hangup.billsec : 0;
  return {
    callid: leg.callid,
    callerid: o.callerId,
    phone: leg.phone,
    started: isoTime(leg.hangup.startedAt.toISOString()) as string,
    duration: leg.hangup.duration,
    billsec,
    billed: billedDuration(billsec, increment),
    cause: leg.hangup.cause,
    disposition: disposition(leg.hangup.cause, answered),
    leg_type: leg.type,
    amd: leg.amd,
    callrequest_id: o.callrequestId,
    campaign_id: o.campaignId,
    subscriber_id: o.subscriberId,
    contact_id: o.contactId,
    user_id: o.userId,
    answered_sections: o.results.length > 0,
  };
}

/** The CDR legs of the outcomes: the A leg, then one B leg per transfer. */
function legRows(outcomes: CallOutcome[], increment: number): LegRow[] {
  return outcomes.flatMap((o) => [
    legRow(o, { callid: o.callUuid, phone: o.phoneNumber, hangup: o.hangup, type: LegType.A, amd: amdStatus[o.amd] }, increment),
    ...o.transfers.map((t) => legRow(o, { callid: t.callId, phone: t.number, hangup: t.hangup, type: LegType.B, amd: AmdStatus.NoDetect }, increment)),
  ]);
}

/** The callrequests' final status: SUCCESS when answered, else FAILURE, with the cause. */
function callRows(outcomes: CallOutcome[]) {
  return outcomes.map((o) => ({
    id: o.callrequestId,
    status: o.hangup.answeredAt !== null ? CallRequestStatus.Success : CallRequestStatus.Failure,
    cause_name: causeNameOf(o),
    cause: o.hangup.cause,
    completed: o.completed,
    conversation: o.hangup.answeredAt !== null && o.amd !== 'machine',
  }));
}

/** The subscribers' side of the outcomes (store/settle-subscribers.ts applies the retry policy). */
function subscriberRows(outcomes: CallOutcome[]): SettledSubscriber[] {
  return outcomes.map((o) => {
    const answered = o.hangup.answeredAt !== null;
    // A call the fence cut short is retried like one closed by recovery (ENGINE_RESTART), which
    // it would have been had another engine taken this one for dead: whoever does it, the outcome
    // is the same. One that reached a completed section is done.
    const cut = o.fenced === true && !o.completed;
    return {
      id: o.subscriberId,
      answered: answered && !cut,
      done: o.completed ? SubscriberStatus.Completed : SubscriberStatus.Sent,
      ended: o.hangup.endedAt.toISOString(),
      cause_name: causeNameOf(o),
      rule: cut ? 'failed' : retryCauseOf(o.hangup.cause, answered, o.amd),
      disposition: disposition(o.hangup.cause, answered),
      callback: o.callbackMinutes ?? null,
    };
  });
}

/** The calls' recordings: each record section's message, and the whole call (record_calls). */
function recordingRows(outcomes: CallOutcome[]): NewRecording[] {
  return outcomes.flatMap((o) => {
    const at = { callrequest_id: o.callrequestId, user_id: o.userId, created: o.hangup.endedAt.toISOString() };
    const messages = o.results.filter((r) => r.record_file).map((r) => ({ ...at, kind: RecordingKind.Message, file: r.record_file, seconds: 0 }));
    const whole = o.hangup.recording?.file ? [{ ...at, kind: RecordingKind.Call, file: o.hangup.recording.file, seconds: o.hangup.recording.seconds }] : [];
    return [...whole, ...messages];
  });
}

/**
 * Records several outcomes in one transaction, set-based: all of them or none. Returns the
 * callrequest ids of those not written because their call was closed meanwhile (or `onlyIf`, a
 * predicate on the callrequest `r`, did not hold).
 */
export async function recordOutcomes(db: Db, all: CallOutcome[], billingIncrement: number, onlyIf?: SQL): Promise<number[]> {
  if (!all.length) return [];
  return db.transaction(async (tx) => {
    // The calls first: only those still CALLING are written.
    const settled = await settleCallrequests(tx, callRows(all), onlyIf);
    const outcomes = all.filter((o) => settled.has(o.callrequestId));
    const closed = all.filter((o) => !settled.has(o.callrequestId)).map((o) => o.callrequestId);
    if (!outcomes.length) return closed;
    // The answers before the CDRs: each call's call.completed event, written with its CDR, carries them.
    const results = outcomes.flatMap((o) => o.results.map((r) => ({ callrequest_id: o.callrequestId, ...r })));
    if (results.length) await insertCallResults(tx, results);
    await insertBilledLegs(tx, legRows(outcomes, billingIncrement));
    await settleSubscribers(tx, subscriberRows(outcomes));
    await insertRecordings(tx, recordingRows(outcomes));
    // Caller-id rotation: the numbers' ended and answered calls, and their rest (store/callerids.ts).
    const shown = outcomes.filter((o) => o.callerIdId != null);
    await countCallerIdOutcomes(tx, shown.map((o) => ({ id: o.callerIdId as number, answered: o.hangup.answeredAt !== null, ended: o.hangup.endedAt.toISOString() })));
    return closed;
  });
}

/** Completes (answered) or fails (not answered) a call: every write in one transaction. Returns false when the call was closed meanwhile (or `onlyIf` did not hold). */
export async function recordOutcome(db: Db, o: CallOutcome, billingIncrement: number, onlyIf?: SQL): Promise<boolean> {
  return (await recordOutcomes(db, [o], billingIncrement, onlyIf)).length === 0;
}

interface Pending {
  outcome: CallOutcome;
  resolve: () => void;
  reject: (err: Error) => void;
}

export interface OutcomeWriterOptions {
  maxBatch?: number;
  delayMs?: number;
  log?: { warn(message: string): void };
  /**
   * Whether the engine is stopping: outcomes kept while the database is out of reach are then
   * given up (their calls stay CALLING, and the next start's recovery closes them as
   * ENGINE_RESTART) rather than held, so that a stop does not wait for the database.
   */
  stopping?: () => boolean;
}

/**
 * Gathers outcomes for a moment (`delayMs`, or until `maxBatch` are waiting) and records them in
 * one transaction; `record` resolves once its outcome is committed. One batch at a time: calls
 * ending during a write go into the next. A failed batch is written again outcome by outcome.
 *
 * While the database is out of reach (PostgreSQL restarted, the network to it down: a write
 * failed without reaching it, databaseUnreachable), outcomes are kept, in order, and tried again
 * (200 ms, doubling up to 5 s) until it answers. Before, they were dropped: the calls that ended
 * during an outage stayed CALLING and their subscribers IN_PROCESS for as long as the engine ran,
 * and the campaign never ended. Trying again is safe: a write whose commit went through before
 * its connection was lost finds its call no longer CALLING and writes nothing twice.
 */
export class OutcomeWriter {
  private queue: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private writing = false;
  /** Set while outcomes are kept for a database out of reach: the error that said so. */
  private unreachable: string | undefined;

  constructor(
    private readonly db: Db,
    private readonly billingIncrement: number,
    private readonly options: OutcomeWriterOptions = {},
  ) {}

  /** Says which outcomes were not written: their calls were closed meanwhile. */
  private closed(ids: number[]): void {
    if (ids.length) this.options.log?.warn(`call(s) ${ids.join(', ')}: already closed (by another engine's recovery while this one was silent, as ENGINE_RESTART, or by an earlier try of this write whose answer was lost with its connection); their outcome is not written again`);
  }

  record(outcome: CallOutcome): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ outcome, resolve, reject });
      if (this.writing) return;
      if (this.queue.length >= (this.options.maxBatch ?? 500)) {
        clearTimeout(this.timer);
        this.timer = undefined;
        void this.drain();
      } else {
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          void this.drain();
        }, this.options.delayMs ?? 2);
      }
    });
  }

  private async drain(): Promise<void> {
    if (this.writing) return;
    this.writing = true;
    try {
      for (let wait = RETRY_FIRST_MS; this.queue.length; ) {
        const batch = this.queue.splice(0, this.options.maxBatch ?? 500);
        const kept = await this.write(batch);
        if (!kept.length) {
          wait = RETRY_FIRST_MS;
          continue;
        }
        if (this.options.stopping?.()) {
          const err = new Error(`not recorded: the database is out of reach while the engine stops (${this.unreachable}); the call stays CALLING until the next start's recovery closes it as ENGINE_RESTART`);
          for (const p of [...kept, ...this.queue.splice(0)]) p.reject(err);
          break;
        }
        this.queue.unshift(...kept);
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(2 * wait, RETRY_MAX_MS);
      }
    } finally {
      this.writing = false;
    }
  }

  /** Writes a batch; returns what is kept for later: from the first outcome the database could not be reached for. */
  private async write(batch: Pending[]): Promise<Pending[]> {
    try {
      this.closed(await recordOutcomes(this.db, batch.map((p) => p.outcome), this.billingIncrement));
      this.reached(batch.length);
      for (const p of batch) p.resolve();
      return [];
    } catch (err) {
      if (databaseUnreachable(err)) return this.keep(batch, err);
    }
    // One bad outcome cannot take the others down: each on its own.
    for (const [i, p] of batch.entries()) {
      try {
        if (!(await recordOutcome(this.db, p.outcome, this.billingIncrement))) this.closed([p.outcome.callrequestId]);
        this.reached(1);
        p.resolve();
      } catch (err) {
        if (databaseUnreachable(err)) return this.keep(batch.slice(i), err);
        p.reject(err as Error);
      }
    }
    return [];
  }

  private keep(kept: Pending[], err: unknown): Pending[] {
    if (this.unreachable === undefined) {
      this.unreachable = rootMessage(err);
      this.options.log?.warn(`outcomes: the database is out of reach (${this.unreachable}); ${kept.length} kept, and those of calls ending meanwhile, until it answers`);
    }
    return kept;
  }

  /** After a write went through: says so once when outcomes were kept for a database out of reach. */
  private reached(n: number): void {
    if (this.unreachable === undefined) return;
    this.unreachable = undefined;
    this.options.log?.warn(`outcomes: the database answers again; the kept outcomes are being written (${n} in the first write)`);
  }
}
