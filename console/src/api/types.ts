/** The API's records as the console reads them (docs/contract.md; the OpenAPI document has them all). */
import type { WaitReason } from '../../../src/campaign/contact-policy.ts';

export interface SessionUser {
  username: string;
  is_admin: boolean;
  csrf_token: string;
  expires: string;
}

export interface User {
  url: string;
  username: string;
  first_name: string;
  last_name: string;
  email: string;
  balance: number;
  call_rate: number;
  sms_rate: number;
}

/** Contract §4: campaign and SMS campaign status. */
export const CampaignStatus = { New: 0, Start: 1, Pause: 2, Abort: 3, End: 4 } as const;

export interface CampaignProgress {
  subscribers: Record<string, number> & { total: number };
  calls_placed?: number;
  answered?: number;
  total_cost?: string;
  [key: string]: unknown;
}

/** The fields both kinds share (voice and SMS campaigns). */
export interface CampaignBase {
  id: number;
  url: string;
  name: string;
  description: string;
  callerid: string;
  phonebook: string[];
  startingdate: string | null;
  expirationdate: string | null;
  user: string;
  status: number;
  frequency: number;
  callmaxduration: number;
  maxretry: number;
  intervalretry: number;
  daily_start_time: string;
  daily_stop_time: string;
  monday: boolean;
  tuesday: boolean;
  wednesday: boolean;
  thursday: boolean;
  friday: boolean;
  saturday: boolean;
  sunday: boolean;
  end_when_done: boolean;
  has_been_started: boolean;
  totalcontact: number;
  dialing_state: string;
  progress: CampaignProgress;
  created_date: string;
  updated_date: string;
}

export interface VoiceCampaign extends CampaignBase {
  campaign_code: string;
  caller_name: string;
  max_aleg: number;
  max_xfer: number;
  dial_method: number;
  agent_dial_rate: string;
  calltimeout: number;
  aleg_gateway: string | null;
  sms_gateway: string | null;
  object_id: number | null;
  extra_data: string;
  voicemail: boolean;
  amd_behavior: number;
  voicemail_audiofile: string | null;
  dnc: string | null;
  callerid_group: string | null;
  timezone_dialing: boolean;
  completion_enabled: boolean;
  completion_maxretry: number;
  completion_intervalretry: number;
  record_calls: boolean;
  retry_rules: Record<string, { attempts: number; interval: number }> | null;
}

export interface SmsCampaign extends CampaignBase {
  sms_gateway: string | null;
  text_message?: string;
}

/** A campaign's subscriber (/rest-api/subscriber-list/): one number to call, and where it stands. */
export interface Subscriber {
  id: number;
  url: string;
  contact: string | null;
  campaign: string;
  last_attempt: string | null;
  count_attempt: number;
  status: number;
  duplicate_contact: string;
  full_name: string;
  tz_code: string;
  /** Not called before this instant (an appointment); null: as soon as the campaign may. */
  scheduled_at: string | null;
  /** Why it ended, or why its last call failed; '' if neither. */
  reason: string;
  /** Why a pending one is held by the contact caps or calling hours. */
  wait_reason: WaitReason | null;
}

export interface Cdr {
  url: string;
  callid: string;
  callerid: string;
  phone_number: string;
  starting_date: string;
  duration: number;
  billsec: number;
  billed_duration: number;
  call_cost: string;
  hangup_cause_q850: number;
  leg_type: number;
  amd_status: number;
  disposition: string;
  callrequest: string;
  campaign: string;
}

/** A record that other records link to, as a list shows it (name and link are all a picker needs). */
export interface Named {
  url: string;
  name: string;
}

/** One event of the activity stream (README, "Events and webhooks"). */
export interface DialerEvent {
  id: string;
  type: string;
  created: string;
  data: Record<string, unknown>;
}

/** A call the engine placed (/rest-api/callrequest/); status 7 = CALLING, in flight. */
export interface CallRequest {
  id: number;
  url: string;
  campaign: string;
  status: number;
  phone_number: string;
  attempt: number;
  call_time: string | null;
  created_date: string;
}

/** A voice campaign's survey answers per question (/rest-api/campaigns/<id>/results/). */
export interface SurveyResults {
  campaign: string;
  results: {
    section: string | null;
    section_order: number | null;
    question: string;
    /** Calls that answered the question. */
    answered: number;
    /** Calls per answer, most frequent first; "recorded" for a recorded message, "" for no valid answer. */
    responses: { response: string; label: string | null; count: number }[];
  }[];
}
