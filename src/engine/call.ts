/**
 * One call, from dial to outcome (a task: idempotent in effect, since the callrequest was
 * committed CALLING before the dial and the outcome only settles an IN_PROCESS subscriber).
 * AMD (contract §4 amd_behavior, with `voicemail`): 1 survey to people and the voicemail audio to
 * machines, 2 people only (hang up on machines), 3 machines only (hang up on people, leave the
 * voicemail audio). An unsure or undetected answer counts as a person. With 3, the voicemail
 * audio waits for the greeting's beep (when the driver can hear one), so the machine records
 * the whole message rather than its end: at most BEEP_WAIT_SECONDS, then it plays anyway.
 */
import { AmdBehavior } from '../db/schema.ts';
import type { SurveyFlow } from '../campaign/survey-flow.ts';
import type { EngineContext } from './context.ts';
import type { CampaignRow, ClaimedCall, GatewayRow } from './dialer.ts';
import { type AmdResult, type Call, type Hangup, Q850 } from '../drivers/voice/driver.ts';
import { type IvrOutcome, runSurvey } from './ivr.ts';
import type { CallOutcome } from './outcome.ts';
import { sendCallSms } from './sms/call-sms.ts';
import { audioFilePath } from './store/audio-files.ts';
import { rootMessage, untilReached } from '../db/unreachable.ts';
import { takeTransferSlot } from './transfer-slots.ts';

const emptyFlow: SurveyFlow = { survey_id: 0, name: '', sections: [] };

/** The longest wait for a voicemail greeting's beep after the machine verdict (amd_behavior 3). */
export const BEEP_WAIT_SECONDS = 20;

/** The call's variables: what the driver gets and what API sections send. */
export function callVariables(c: CampaignRow, claimed: ClaimedCall): Record<string, string> {
  const s = claimed.subscriber;
  const extra = Object.fromEntries(Object.entries((s.additional_vars ?? {}) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
  return {
    ...extra,
    campaign_id: String(c.id),
    campaign_code: c.campaign_code,
    callrequest_id: String(claimed.callrequestId),
    subscriber_id: String(s.id),
    contact_id: s.contact_id === null ? '' : String(s.contact_id),
    phone_number: s.duplicate_contact,
    full_name: s.full_name,
  };
}

/** The keys a simulated caller may press: those the flow's branches name. */
function expectedKeys(flow: SurveyFlow): string[] {
  const keys = flow.sections.flatMap((s) => s.branches.flatMap((b) => b.keys.split(',').map((k) => k.trim())));
  return [...new Set(keys.filter((k) => /^\d+$/.test(k)))];
}

/** A hangup for a call that never reached the carrier (driver error). */
export function failedHangup(at: Date, causeName: string, cause: number = Q850.NormalTemporaryFailure): Hangup {
  return { cause, causeName, startedAt: at, answeredAt: null, endedAt: at, duration: 0, billsec: 0 };
}

/** The voicemail audio's path; with the database out of reach, read once it answers (the machine waits), unless the engine stops. */
async function voicemailAudio(ctx: EngineContext, c: CampaignRow, callrequestId: number, stopping?: () => boolean): Promise<string | null> {
  const id = c.voicemail_audiofile_id;
  if (!id) return null;
  return untilReached(() => audioFilePath(ctx.db, id), {
    giveUp: stopping ?? (() => true),
    waiting: (err) => ctx.log.warn(`call ${callrequestId}: the voicemail audio: the database is out of reach (${rootMessage(err)}); reading it when it answers`),
  });
}

/** What an answered call does, by AMD result and amd_behavior. */
async function converse(ctx: EngineContext, c: CampaignRow, claimed: ClaimedCall, call: Call, amd: AmdResult, stopping?: () => boolean): Promise<IvrOutcome> {
  const empty: IvrOutcome = { results: [], transfers: [], completed: false };
  const machine = c.voicemail && amd === 'machine';
  if (c.voicemail && c.amd_behavior === AmdBehavior.MachinesOnly && !machine) return empty;
  if (machine) {
    if (c.amd_behavior !== AmdBehavior.PeopleOnly) {
      const audioFile = await voicemailAudio(ctx, c, claimed.callrequestId, stopping);
      if (c.amd_behavior === AmdBehavior.MachinesOnly) await call.waitForBeep?.(BEEP_WAIT_SECONDS);
      await call.play({ audioFile });
    }
    return empty;
  }
  const variables = callVariables(c, claimed);
  const to = claimed.subscriber.duplicate_contact;
  return runSurvey({
    db: ctx.db,
    call,
    flow: (c.survey_snapshot as SurveyFlow | null) ?? emptyFlow,
    variables,
    callerId: claimed.callerId,
    campaign: c,
    phoneNumber: to,
    phoneKey: claimed.subscriber.phone_key,
    allowPrivate: ctx.config.webhookAllowPrivate,
    transferSlot: () => takeTransferSlot(c.id, c.max_xfer),
    sendSms: (template) => sendCallSms(ctx, { campaign: c, callrequestId: claimed.callrequestId, to, template, variables, stopping }),
    stopping,
    warn: (message) => ctx.log.warn(`call ${claimed.callrequestId}: ${message}`),
  });
}

/** Writes a call's outcome: the engine's batching writer (OutcomeWriter, outcome.ts). */
export type RecordOutcome = (outcome: CallOutcome) => Promise<void>;

/** What the engine gives each call it dials. */
export interface DialHooks {
  /** Gets the Call while it is up. */
  track: (call: Call) => void;
  /** Records its outcome. */
  record: RecordOutcome;
  /** Asked by the driver just before the call goes out (OriginateRequest.mayDial). */
  mayDial: () => boolean | Promise<boolean>;
  /** Whether the engine is stopping (a survey's opt-out then stops waiting for the database). */
  stopping?: () => boolean;
}

/** Dials a claimed call and records its outcome. */
export async function dial(ctx: EngineContext, c: CampaignRow, gateway: GatewayRow, claimed: ClaimedCall, { track, record, mayDial, stopping }: DialHooks): Promise<void> {
  const s = claimed.subscriber;
  const base = {
    callrequestId: claimed.callrequestId,
    callUuid: claimed.callUuid,
    campaignId: c.id,
    userId: c.user_id,
    subscriberId: s.id,
    contactId: s.contact_id,
    phoneNumber: s.duplicate_contact,
    callerId: claimed.callerId,
    callerIdId: claimed.callerIdId,
  };
  let call: Call;
  try {
    const flow = (c.survey_snapshot as SurveyFlow | null) ?? emptyFlow;
    call = ctx.drivers(gateway).originate({
      callId: claimed.callUuid,
      to: claimed.dialled,
      callerId: claimed.callerId,
      callerName: c.caller_name,
      gateway: { ...gateway, settings: gateway.settings as Record<string, unknown> },
      timeoutSeconds: c.calltimeout,
      maxDurationSeconds: c.callmaxduration,
      amd: c.voicemail,
      recordCall: c.record_calls,
      variables: callVariables(c, claimed),
      expectedKeys: expectedKeys(flow),
      mayDial,
    });
  } catch (err) {
    ctx.log.error(`dial ${claimed.callrequestId} failed: ${(err as Error).message}`);
    const hangup = failedHangup(ctx.clock.now(), 'DRIVER_ERROR');
    await record({ ...base, hangup, amd: 'none', results: [], transfers: [], completed: false });
    return;
  }
  track(call);
  // A call can end while still being answered (a hangup during answering-machine detection):
  // then it is recorded as answered, and no survey runs (nor sends an SMS) on a dead line.
  let over = false;
  void call.ended.then(() => (over = true));
  const answer = await call.answered;
  if (!answer.answered) {
    await record({ ...base, hangup: answer.hangup, amd: 'none', results: [], transfers: [], completed: false });
    return;
  }
  let ivr: IvrOutcome = { results: [], transfers: [], completed: false };
  try {
    if (!over) ivr = await converse(ctx, c, claimed, call, answer.amd, stopping);
  } catch (err) {
    ivr.error = (err as Error).message;
  }
  // The results answered before a failure are kept (ivr.ts runSurvey).
  const { error, ...answered } = ivr;
  if (error) ctx.log.warn(`call ${claimed.callrequestId}: IVR stopped: ${error}`);
  await call.hangup().catch(() => undefined);
  const hangup = await call.ended;
  await record({ ...base, hangup, amd: answer.amd, ...answered });
}
