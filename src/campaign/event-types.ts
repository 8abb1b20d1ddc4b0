/**
 * The event types (README, "Events and webhooks"), said once: the event log writes them
 * (events.ts), and the console names them to its EventSource and its webhook form. No imports,
 * so the console's bundle can take it as it is.
 */
export const EventType = {
  CampaignStarted: 'campaign.started',
  CampaignPaused: 'campaign.paused',
  CampaignResumed: 'campaign.resumed',
  CampaignEnded: 'campaign.ended',
  CampaignAborted: 'campaign.aborted',
  CampaignWaiting: 'campaign.waiting',
  CampaignRecycled: 'campaign.recycled',
  CallCompleted: 'call.completed',
  SubscriberFinal: 'subscriber.final',
  SmsSent: 'sms.sent',
  SmsDelivered: 'sms.delivered',
  SmsFailed: 'sms.failed',
  SmsOptOut: 'sms.opt_out',
  ImportFinished: 'import.finished',
  BalanceLow: 'balance.low',
  WebhookDisabled: 'webhook.disabled',
} as const;
export type EventTypeName = (typeof EventType)[keyof typeof EventType];
export const eventTypes: readonly string[] = Object.values(EventType);
