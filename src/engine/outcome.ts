/**
 * A call's outcome (contract §5–§6), written in ONE transaction: the A-leg CDR (and a B-leg CDR
 * per transfer), billing (billed_duration, call_cost in SQL numeric, the owner's balance), the
 * survey's answers, the callrequest's status and the subscriber's (SENT/COMPLETED, or back to
 * PENDING for a retry, or FAIL when no attempt is left). Several outcomes may share that
 * transaction (`recordOutcomes`, set-based: one statement per table whatever their number), so
 * each outcome's writes still commit or roll back together. `OutcomeWriter` gathers the
 * outcomes of calls ending close together into such batches; when a batch fails, it writes its
 * outcomes one by one, so one bad outcome cannot take the others down.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { AmdStatus, CallRequestStatus, CampaignStatus, LegType, SubscriberStatus } from '../db/schema.ts';
import { type AmdResult, type Hangup, Q850 } from '../drivers/voice/driver.ts';
import type { SectionResult, TransferLeg } from './ivr.ts';

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
  hangup: Hangup;
  amd: AmdResult;
  results: SectionResult[];
  transfers: TransferLeg[];
  completed: boolean;
  /** A cause name for the callrequest, when it differs from the driver's (ENGINE_RESTART). */
  causeName?: string;
}

/** The rows of one CDR leg, as the set-based insert reads them (jsonb_to_recordset). */
function legRow(o: CallOutcome, leg: { callid: string; phone: string; hangup: Hangup; type: number; amd: number }, increment: number) {
  const answered = leg.hangup.answeredAt !== null;
  const billsec = answered ? leg.hangup.billsec : 0;
  return {
    callid: leg.callid,
    callerid: o.callerId,
    phone: leg.phone,
    started: leg.hangup.startedAt.toISOString(),
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
  };
}

const json = (rows: unknown[]) => sql`${JSON.stringify(rows)}::jsonb`;

/** CDR legs with their cost (the owner's call_rate, SQL numeric), and the owners billed. */
async function writeLegs(tx: Db, outcomes: CallOutcome[], increment: number): Promise<void> {
  const legs = outcomes.flatMap((o) => [
    legRow(o, { callid: o.callUuid, phone: o.phoneNumber, hangup: o.hangup, type: LegType.A, amd: amdStatus[o.amd] }, increment),
    ...o.transfers.map((t) => legRow(o, { callid: t.callId, phone: t.number, hangup: t.hangup, type: LegType.B, amd: AmdStatus.NoDetect }, increment)),
  ]);
  await tx.execute(sql`
    with legs as (
      select row_number() over () as ord, l.* from jsonb_to_recordset(${json(legs)}) as l(callid text, callerid text, phone text,
        started timestamptz, duration int, billsec int, billed int, cause int, disposition text, leg_type int, amd int,
        callrequest_id bigint, campaign_id int, subscriber_id bigint, contact_id int, user_id int)
    ), priced as (
      select l.*, round(u.call_rate * l.billed::numeric / 60, 5) as cost from legs l left join users u on u.id = l.user_id
    ), bill as (
      update users u set balance = u.balance - b.total
      from (select user_id, sum(cost) as total from priced where billed > 0 group by user_id) b where u.id = b.user_id
    )
    insert into cdrs (callid, callerid, phone_number, starting_date, duration, billsec, billed_duration, call_cost,
      hangup_cause_q850, disposition, leg_type, amd_status, callrequest_id, campaign_id, subscriber_id, contact_id, user_id)
    select callid, callerid, phone, started, duration, billsec, billed, coalesce(cost, 0), cause, disposition, leg_type, amd,
      callrequest_id, campaign_id, subscriber_id, contact_id, user_id
    from priced order by ord`);
}

async function writeResults(tx: Db, outcomes: CallOutcome[]): Promise<void> {
  const rows = outcomes.flatMap((o) => o.results.map((r) => ({ callrequest_id: o.callrequestId, ...r })));
  if (!rows.length) return;
  // A frozen survey may name a section since deleted: the answer is kept, the link dropped.
  await tx.execute(sql`insert into call_results (callrequest_id, section_id, section_order, question, response, record_file)
    select r.callrequest_id, st.id, r.section_order, r.question, r.response, r.record_file
    from (select row_number() over () as ord, x.* from jsonb_to_recordset(${json(rows)}) as x(callrequest_id bigint, section_id int,
      section_order int, question text, response text, record_file text)) r
    left join section_templates st on st.id = r.section_id order by r.ord`);
}

async function settleCallrequests(tx: Db, outcomes: CallOutcome[]): Promise<void> {
  const rows = outcomes.map((o) => ({
    id: o.callrequestId,
    status: o.hangup.answeredAt !== null ? CallRequestStatus.Success : CallRequestStatus.Failure,
    cause_name: o.causeName ?? o.hangup.causeName,
    cause: o.hangup.cause,
    completed: o.completed,
  }));
  await tx.execute(sql`update callrequests r set updated_date = now(), status = v.status, hangup_cause = v.cause_name,
      hangup_cause_q850 = v.cause, completed = v.completed
    from jsonb_to_recordset(${json(rows)}) as v(id bigint, status int, cause_name text, cause int, completed boolean)
    where r.id = v.id`);
}

/** The subscribers after their calls: answered → SENT/COMPLETED; else PENDING (retry) or FAIL. */
async function settleSubscribers(tx: Db, outcomes: CallOutcome[]): Promise<void> {
  const rows = outcomes.map((o) => ({
    id: o.subscriberId,
    answered: o.hangup.answeredAt !== null,
    done: o.completed ? SubscriberStatus.Completed : SubscriberStatus.Sent,
    ended: o.hangup.endedAt.toISOString(),
    cause_name: o.causeName ?? o.hangup.causeName,
  }));
  await tx.execute(sql`
    update subscribers s set updated_date = now(),
      status = case when v.answered then v.done
                    when c.status = ${CampaignStatus.Abort} then ${SubscriberStatus.Abort}::int
                    when s.count_attempt < 1 + c.maxretry then ${SubscriberStatus.Pending}::int
                    else ${SubscriberStatus.Fail}::int end,
      next_attempt_at = case when v.answered then s.next_attempt_at else v.ended + c.intervalretry * interval '1 second' end,
      reason = case when v.answered then '' when s.count_attempt < 1 + c.maxretry then v.cause_name
                    else 'no attempt left (last: ' || v.cause_name || ')' end
    from jsonb_to_recordset(${json(rows)}) as v(id bigint, answered boolean, done int, ended timestamptz, cause_name text), campaigns c
    where c.id = s.campaign_id and s.id = v.id and s.status = ${SubscriberStatus.InProcess}`);
}

/** Records several outcomes in one transaction, set-based: all of them or none. */
export async function recordOutcomes(db: Db, outcomes: CallOutcome[], billingIncrement: number): Promise<void> {
  if (!outcomes.length) return;
  await db.transaction(async (tx) => {
    await writeLegs(tx, outcomes, billingIncrement);
    await writeResults(tx, outcomes);
    await settleCallrequests(tx, outcomes);
    await settleSubscribers(tx, outcomes);
  });
}

/** Completes (answered) or fails (not answered) a call: every write in one transaction. */
export async function recordOutcome(db: Db, o: CallOutcome, billingIncrement: number): Promise<void> {
  await recordOutcomes(db, [o], billingIncrement);
}

interface Pending {
  outcome: CallOutcome;
  resolve: () => void;
  reject: (err: Error) => void;
}

/**
 * Gathers outcomes for a moment (`delayMs`, or until `maxBatch` are waiting) and records them in
 * one transaction; `record` resolves once its outcome is committed. One batch at a time: calls
 * ending during a write go into the next. A failed batch is written again outcome by outcome.
 */
export class OutcomeWriter {
  private queue: Pending[] = [];
  private timer?: NodeJS.Timeout;
  private writing = false;

  constructor(
    private readonly db: Db,
    private readonly billingIncrement: number,
    private readonly options: { maxBatch?: number; delayMs?: number } = {},
  ) {}

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
      while (this.queue.length) {
        const batch = this.queue.splice(0, this.options.maxBatch ?? 500);
        try {
          await recordOutcomes(this.db, batch.map((p) => p.outcome), this.billingIncrement);
          for (const p of batch) p.resolve();
        } catch {
          for (const p of batch) {
            await recordOutcome(this.db, p.outcome, this.billingIncrement).then(p.resolve, p.reject);
          }
        }
      }
    } finally {
      this.writing = false;
    }
  }
}
