/**
 * A call's outcome (contract §5–§6), written in ONE transaction: the A-leg CDR (and a B-leg CDR
 * per transfer), billing (billed_duration, call_cost in SQL numeric, the owner's balance), the
 * survey's answers, the callrequest's status and the subscriber's (SENT/COMPLETED, or back to
 * PENDING for a retry, or FAIL when no attempt is left).
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { AmdStatus, CallRequestStatus, CampaignStatus, LegType, SubscriberStatus } from '../db/schema.ts';
import type { AmdResult, Hangup } from './drivers/driver.ts';
import type { SectionResult, TransferLeg } from './ivr.ts';

/** Contract §4: the CDR disposition of a Q.850 cause. */
export function disposition(cause: number, answered: boolean): string {
  if (answered) return 'ANSWER'; // hitting callmaxduration is still an answered call
  switch (cause) {
    case 16:
      return 'ANSWER';
    case 17:
      return 'BUSY';
    case 19:
      return 'NOANSWER';
    case 21:
      return 'REJECTED';
    case 487:
      return 'CANCEL';
    case 34:
    case 42:
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

/** Inserts one CDR leg and bills it to the owner; returns nothing (all in SQL numeric). */
async function writeLeg(tx: Db, o: CallOutcome, leg: { callid: string; phone: string; hangup: Hangup; type: number; amd: number }, increment: number) {
  const answered = leg.hangup.answeredAt !== null;
  const billsec = answered ? leg.hangup.billsec : 0;
  const billed = billedDuration(billsec, increment);
  await tx.execute(sql`
    with cost as (select round(call_rate * ${billed}::numeric / 60, 5) as c from users where id = ${o.userId}),
    bill as (update users set balance = balance - (select c from cost) where id = ${o.userId} and ${billed} > 0)
    insert into cdrs (callid, callerid, phone_number, starting_date, duration, billsec, billed_duration, call_cost,
      hangup_cause_q850, disposition, leg_type, amd_status, callrequest_id, campaign_id, subscriber_id, contact_id, user_id)
    values (${leg.callid}, ${o.callerId}, ${leg.phone}, ${leg.hangup.startedAt.toISOString()}::timestamptz, ${leg.hangup.duration},
      ${billsec}, ${billed}, coalesce((select c from cost), 0), ${leg.hangup.cause}, ${disposition(leg.hangup.cause, answered)},
      ${leg.type}, ${leg.amd}, ${o.callrequestId}, ${o.campaignId}, ${o.subscriberId}, ${o.contactId}, ${o.userId})`);
}

async function writeResults(tx: Db, o: CallOutcome): Promise<void> {
  for (const r of o.results) {
    // A frozen survey may name a section since deleted: the answer is kept, the link dropped.
    await tx.execute(sql`insert into call_results (callrequest_id, section_id, section_order, question, response, record_file)
      values (${o.callrequestId}, (select id from section_templates where id = ${r.section_id}), ${r.section_order},
              ${r.question}, ${r.response}, ${r.record_file})`);
  }
}

/** The subscriber after the call: answered → SENT/COMPLETED; else PENDING (retry) or FAIL. */
async function settleSubscriber(tx: Db, o: CallOutcome, answered: boolean): Promise<void> {
  const done = o.completed ? SubscriberStatus.Completed : SubscriberStatus.Sent;
  await tx.execute(sql`
    update subscribers s set updated_date = now(),
      status = case when ${answered}::boolean then ${done}::int
                    when c.status = ${CampaignStatus.Abort} then ${SubscriberStatus.Abort}::int
                    when s.count_attempt < 1 + c.maxretry then ${SubscriberStatus.Pending}::int
                    else ${SubscriberStatus.Fail}::int end,
      next_attempt_at = case when ${answered}::boolean then s.next_attempt_at
                    else ${o.hangup.endedAt.toISOString()}::timestamptz + c.intervalretry * interval '1 second' end,
      reason = case when ${answered}::boolean then '' when s.count_attempt < 1 + c.maxretry then ${o.causeName ?? o.hangup.causeName}::text
                    else ${`no attempt left (last: ${o.causeName ?? o.hangup.causeName})`} end
    from campaigns c where c.id = s.campaign_id and s.id = ${o.subscriberId} and s.status = ${SubscriberStatus.InProcess}`);
}

/** Completes (answered) or fails (not answered) a call: every write in one transaction. */
export async function recordOutcome(db: Db, o: CallOutcome, billingIncrement: number): Promise<void> {
  const answered = o.hangup.answeredAt !== null;
  await db.transaction(async (tx) => {
    await writeLeg(tx, o, { callid: o.callUuid, phone: o.phoneNumber, hangup: o.hangup, type: LegType.A, amd: amdStatus[o.amd] }, billingIncrement);
    for (const t of o.transfers) {
      await writeLeg(tx, o, { callid: t.callId, phone: t.number, hangup: t.hangup, type: LegType.B, amd: AmdStatus.NoDetect }, billingIncrement);
    }
    await writeResults(tx, o);
    await tx.execute(sql`update callrequests set updated_date = now(),
        status = ${answered ? CallRequestStatus.Success : CallRequestStatus.Failure},
        hangup_cause = ${o.causeName ?? o.hangup.causeName}, hangup_cause_q850 = ${o.hangup.cause}, completed = ${o.completed}
      where id = ${o.callrequestId}`);
    await settleSubscriber(tx, o, answered);
  });
}
