/** Campaign statuses and `dialing_state` in plain words, shared by every page that shows a campaign. */
import { CampaignStatus } from './api/types.ts';

export const STATUS_NAMES: Record<number, string> = {
  [CampaignStatus.New]: 'Not started',
  [CampaignStatus.Start]: 'Running',
  [CampaignStatus.Pause]: 'Paused',
  [CampaignStatus.Abort]: 'Aborted',
  [CampaignStatus.End]: 'Ended',
};

export const statusName = (status: number) => STATUS_NAMES[status] ?? `Status ${status}`;

/** Whether a campaign may still dial or send: not ended, not aborted (the API answers 409 to recycling it then). */
export const canStillRun = (status: number) => status !== CampaignStatus.End && status !== CampaignStatus.Abort;

/** An SMS message's `status` (sms-message) and its words, as the filters show them. */
export const MESSAGE_STATUSES: [string, string][] = [
  ['unsent', 'Being handed to the gateway'],
  ['sent', 'Sent (no report yet)'],
  ['delivered', 'Delivered'],
  ['failed', 'Failed'],
];

/** `dialing_state` (src/campaign/dialing-state.ts and the engine's waits) → a sentence for an operator. */
const STATES: Record<string, string> = {
  dialing: 'Dialing now.',
  sending: 'Sending now.',
  'not started': 'Not started yet: start it when it is ready.',
  paused: 'Paused: resume it to go on.',
  aborted: 'Aborted: it will not dial again.',
  ended: 'Ended.',
  'before start date': 'Waiting for its start date.',
  expired: 'Its expiration date has passed.',
  'outside daily hours': 'Waiting for its daily calling hours.',
  'not a dialing day': 'Waiting: today is not one of its calling days.',
  'gateway inactive': 'Waiting: its gateway is switched off.',
  'all subscribers done, waiting for new contacts': 'Every contact is done; waiting for new contacts in its phonebooks.',
  'no subscribers, waiting for contacts': 'Waiting for contacts: its phonebooks are empty.',
  'waiting for credit': 'Waiting for credit: the balance is too low for the next call.',
  'no gateway': 'Waiting: it has no gateway to call through.',
  'no sms gateway': 'Waiting: it has no SMS gateway to send through.',
  'account deactivated': 'Waiting: the owner’s account is deactivated.',
};

export function dialingStateWords(state: string): string {
  return STATES[state] ?? `${state.charAt(0).toUpperCase()}${state.slice(1)}.`;
}

/** Subscriber status names (the keys of `progress.subscribers`) as labels, in the order shown. */
export const SUBSCRIBER_LABELS: [string, string][] = [
  ['pending', 'Pending'],
  ['in_process', 'In progress'],
  ['sent', 'Reached'],
  ['completed', 'Completed'],
  ['complete', 'Sent'],
  ['fail', 'Failed'],
  ['not_authorized', 'Do not call'],
  ['abort', 'Aborted'],
  ['pause', 'Paused'],
];

/** Subscriber statuses by number (contract §4), keyed by the names of SUBSCRIBER_LABELS. */
export const SUBSCRIBER_STATUS: Record<string, number> = { pending: 1, pause: 2, abort: 3, fail: 4, sent: 5, in_process: 6, not_authorized: 7, completed: 8 };

/** The voice subscriber statuses that are final (contract §4): the rest are still to be called. */
export const FINAL_SUBSCRIBER_STATUSES = ['fail', 'sent', 'completed', 'not_authorized', 'abort'] as const;

/** A call's disposition (a CDR's outcome, contract §4) and its words. */
export const DISPOSITIONS: [string, string][] = [
  ['ANSWER', 'Answered'],
  ['BUSY', 'Busy'],
  ['NOANSWER', 'No answer'],
  ['REJECTED', 'Rejected'],
  ['CANCEL', 'Cancelled'],
  ['CONGESTION', 'Congestion'],
  ['FAILED', 'Failed'],
];
