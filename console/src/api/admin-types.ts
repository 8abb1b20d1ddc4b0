/**
 * The records of the management pages (SMS campaigns and messages, gateways, accounts,
 * payments, webhooks, tokens) as the console reads them; their schemas are in
 * src/resources/<name>/ (and the OpenAPI document).
 */
import type { CallingHours, ContactCaps } from '../../../src/campaign/contact-policy.ts';
import type { CampaignProgress, SmsCampaign } from './types.ts';

/** An SMS campaign with its progress as the API gives it (src/resources/campaigns/sms.schema.ts). */
export interface SmsCampaignRecord extends SmsCampaign {
  sms_campaign_code: string;
  text_message: string;
  progress: CampaignProgress & { messages_sent: number; delivered: number; failed: number; total_cost: string };
}

export type SmsMessageStatus = 'unsent' | 'sent' | 'delivered' | 'failed';

export interface SmsMessage {
  id: number;
  url: string;
  sms_campaign: string | null;
  callrequest: string | null;
  recipient_number: string;
  sender_number: string;
  content: string;
  parts: number;
  cost: string;
  status: SmsMessageStatus;
  gateway_message_id: string;
  send_date: string | null;
  delivery_date: string | null;
  error: string;
}

/** A voice or SMS gateway; everything but id, url and name is shown to admins only. */
export interface Gateway {
  id: number;
  url: string;
  name: string;
  status?: number;
  description?: string;
  driver?: string;
  settings?: Record<string, unknown>;
  created_date?: string;
  updated_date?: string;
  // voice
  gateways?: string;
  addprefix?: string;
  removeprefix?: string;
  originate_dial_string?: string;
  maximum_call?: number | null;
  // SMS (admins)
  report_url?: string;
  inbound_url?: string;
}

/** Gateway `status` (contract §3). */
export const GatewayStatus = { Active: 1, Inactive: 0 } as const;

export interface Account {
  url: string;
  id: number;
  user: string;
  username: string;
  is_admin: boolean;
  is_active: boolean;
  email: string;
  first_name: string;
  last_name: string;
  balance: number;
  call_rate: number;
  sms_rate: number;
  balance_low_threshold: number | null;
  recording_retention_days: number | null;
  contact_caps: ContactCaps | null;
  calling_hours: CallingHours | null;
  default_country: string | null;
  created_date: string;
  updated_date: string;
}

/** An account's contact caps and legal calling hours (issue 16): the server's own types, where the rules are. */
export type { CallingHours, ContactCaps };

export interface Payment {
  amount: string;
  user: string;
  description: string;
  created_date: string;
}

export interface Webhook {
  id: number;
  self: string;
  url: string;
  events: string[];
  description: string;
  active: boolean;
  /** true: one delivery at a time, in the log's order; false: up to 16 at a time. */
  ordered: boolean;
  /** 1: each delivery one event (an object); 2–500: an array of up to that many. */
  batch_size: number;
  user: string;
  failing_since: string | null;
  created_date: string;
  updated_date: string;
}

export interface Delivery {
  id: number;
  /** Its first event (a delivery of a webhook with batch_size above 1 carries up to that many). */
  event_id: string;
  event_type: string;
  event_count: number;
  event_ids: string[];
  status: string;
  attempts: number;
  response_status: number | null;
  latency_ms: number | null;
  response_excerpt: string | null;
  error: string | null;
  next_attempt: string | null;
  delivered_at: string | null;
  created: string;
}

export interface ApiToken {
  url: string;
  id: number;
  user: string;
  username: string;
  key_prefix: string;
  created_date: string;
}
