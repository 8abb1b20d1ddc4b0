/**
 * The two kinds of campaign, voice and SMS: one descriptor each, naming its tables (campaigns,
 * subscribers, phonebook links, gateways), the words its messages use, its subscribers' statuses
 * by name, and what its start adds to the lifecycle both share (lifecycle.ts): a voice campaign
 * needs a survey that can run and freezes it at its first start; an SMS campaign needs nothing more.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import {
  campaigns,
  gateways,
  smsCampaigns,
  smsGateways,
  SmsSubscriberStatus,
  SubscriberStatus,
} from '../db/schema.ts';
import { type SpoolTarget, smsSpool, voiceSpool } from './spool.ts';
import { smsTextProblem } from './sms-text.ts';
import { flowProblems, loadFlow } from './survey-flow.ts';

export type CampaignTable = typeof campaigns | typeof smsCampaigns;
export type CampaignRowOf<T extends CampaignTable> = T['$inferSelect'];
export type CampaignInsertOf<T extends CampaignTable> = T['$inferInsert'];

/** A voice or an SMS campaign row. */
export type AnyCampaignRow = CampaignRowOf<CampaignTable>;

type VoiceInsert = CampaignInsertOf<typeof campaigns>;
/** The columns both kinds have, as a write of any kind's campaign sets them (status, dates …). */
export type SharedCampaignColumns = Partial<Pick<VoiceInsert, keyof VoiceInsert & keyof CampaignInsertOf<typeof smsCampaigns>>>;

export interface CampaignKind<T extends CampaignTable = CampaignTable> {
  readonly name: 'voice' | 'sms';
  /** Its REST resource: /rest-api/<resource>/<id>/. */
  readonly resource: 'campaigns' | 'sms-campaigns';
  /** The campaign table (Drizzle), for typed reads and writes. */
  readonly table: T;
  /** The campaign, subscriber and phonebook link tables as SQL names (the spool's and the links'). */
  readonly tables: SpoolTarget;
  /** The gateway table its `gatewayId` points into. */
  readonly gateways: typeof gateways | typeof smsGateways;
  /** The gateway a campaign sends through. */
  gatewayId(row: CampaignRowOf<T>): number | null;
  /** The campaign as messages name it: "The campaign cannot start …", "A running SMS campaign …". */
  readonly noun: 'campaign' | 'SMS campaign';
  /** The same with its article: "A campaign with this name …", "An SMS campaign …". */
  readonly aNoun: 'A campaign' | 'An SMS campaign';
  /** What a start without a gateway names as missing. */
  readonly gatewayField: string;
  /** The gateway as "its … is inactive" names it. */
  readonly gatewayNoun: string;
  /** The word `dialing_state` uses while it works: "dialing" or "sending". */
  readonly activeState: string;
  /** The subscribers' statuses under the names the `progress` object shows. */
  readonly subscriberStatuses: Readonly<Record<string, number>>;
  /** Why this kind cannot start beyond what every kind checks (lifecycle.ts), or undefined. */
  startProblem?(db: Db, row: CampaignRowOf<T>): Promise<string | undefined>;
  /** The columns the first start writes besides the shared ones (the voice survey frozen). */
  firstStartColumns?(db: Db, row: CampaignRowOf<T>): Promise<Partial<CampaignInsertOf<T>>>;
}

/** Voice: a survey template that can run (its flow has no problems) before the first start. */
async function surveyProblem(db: Db, row: CampaignRowOf<typeof campaigns>): Promise<string | undefined> {
  if (row.survey_id === null) return 'it has no survey template (object_id).';
  if (row.has_been_started) return undefined; // the frozen survey runs, whatever the template became
  const flow = await loadFlow(db, row.survey_id);
  if (!flow) return 'its survey template does not exist.';
  const problems = flowProblems(flow);
  return problems.length ? problems.join(' ') : undefined;
}

export const voiceKind: CampaignKind<typeof campaigns> = {
  name: 'voice',
  resource: 'campaigns',
  table: campaigns,
  tables: voiceSpool,
  gateways,
  gatewayId: (row) => row.aleg_gateway_id,
  noun: 'campaign',
  aNoun: 'A campaign',
  gatewayField: 'gateway (aleg_gateway)',
  gatewayNoun: 'gateway',
  activeState: 'dialing',
  subscriberStatuses: {
    pending: SubscriberStatus.Pending,
    in_process: SubscriberStatus.InProcess,
    sent: SubscriberStatus.Sent,
    completed: SubscriberStatus.Completed,
    fail: SubscriberStatus.Fail,
    not_authorized: SubscriberStatus.NotAuthorized,
    abort: SubscriberStatus.Abort,
    pause: SubscriberStatus.Pause,
  },
  startProblem: surveyProblem,
  // contract §5: the survey as it is at the first start is the one every call runs.
  firstStartColumns: async (db, row) => ({ survey_snapshot: await loadFlow(db, row.survey_id as number) }),
};

export const smsKind: CampaignKind<typeof smsCampaigns> = {
  name: 'sms',
  resource: 'sms-campaigns',
  table: smsCampaigns,
  tables: smsSpool,
  gateways: smsGateways,
  gatewayId: (row) => row.sms_gateway_id,
  noun: 'SMS campaign',
  aNoun: 'An SMS campaign',
  gatewayField: 'SMS gateway',
  gatewayNoun: 'SMS gateway',
  activeState: 'sending',
  // Issue 17: the text comes from text_message or, when empty, the SMS template.
  startProblem: (db, row) => smsTextProblem(db, row),
  subscriberStatuses: {
    pending: SmsSubscriberStatus.Pending,
    in_process: SmsSubscriberStatus.InProcess,
    complete: SmsSubscriberStatus.Complete,
    fail: SmsSubscriberStatus.Fail,
    not_authorized: SmsSubscriberStatus.NotAuthorized,
    abort: SmsSubscriberStatus.Abort,
    pause: SmsSubscriberStatus.Pause,
  },
};

/** Every kind: the rules that span them (a phonebook's delete) look at each. */
export const campaignKinds: readonly CampaignKind[] = [voiceKind, smsKind];

/** The status of a gateway of the kind (1 active, 0 inactive), or undefined when it does not exist. */
export async function gatewayStatus(db: Db, kind: CampaignKind, id: number): Promise<number | undefined> {
  const [row] = await db.select({ status: kind.gateways.status }).from(kind.gateways).where(eq(kind.gateways.id, id));
  return row?.status;
}
