/**
 * What a campaign read computes the same way for voice and SMS campaigns (contract §5):
 * `dialing_state`, why it is or is not dialing (sending) now, and its subscribers counted by
 * status under the names of its kind (kinds.ts), the part of `progress` both kinds share.
 */
import { CampaignStatus, SubscriberStatus } from '../db/schema.ts';
import type { CampaignKind } from './kinds.ts';
import { enabledWeekdays, insideDailyWindow, localTime, type WindowFields } from './window.ts';

/** What `dialingState` reads of a campaign: a voice or an SMS campaign row. */
export type DialingRow = WindowFields & {
  status: number;
  engine_state: string | null;
  totalcontact: number;
  timezone_dialing?: boolean;
};

export const DialingState = {
  NotStarted: 'not started',
  Paused: 'paused',
  Aborted: 'aborted',
  Ended: 'ended',
  BeforeStart: 'before start date',
  Expired: 'expired',
  OutsideHours: 'outside daily hours',
  NotADialingDay: 'not a dialing day',
  GatewayInactive: 'gateway inactive',
  AllDone: 'all subscribers done, waiting for new contacts',
  NoSubscribers: 'no subscribers, waiting for contacts',
} as const;

const byStatus: Record<number, string> = {
  [CampaignStatus.New]: DialingState.NotStarted,
  [CampaignStatus.Pause]: DialingState.Paused,
  [CampaignStatus.Abort]: DialingState.Aborted,
  [CampaignStatus.End]: DialingState.Ended,
};

/**
 * Why the campaign is or is not dialing: what the row and the clock say first (status, dates,
 * gateway), then what the engine last saw (`engine_state`: credit, DNC …), then the window
 * and the subscribers left; "dialing" ("sending" for SMS) when none of these stops it. The daily
 * window is read in the instance zone; with `timezone_dialing` it is per subscriber, which only
 * the engine can tell.
 */
export function dialingState(
  kind: CampaignKind,
  row: DialingRow,
  now: Date,
  timeZone: string,
  gatewayStatus: number | undefined,
  subscribers: Map<number, number> | undefined,
): string {
  if (row.status !== CampaignStatus.Start) return byStatus[row.status] ?? DialingState.NotStarted;
  if (row.startingdate && now < new Date(row.startingdate)) return DialingState.BeforeStart;
  if (row.expirationdate && now > new Date(row.expirationdate)) return DialingState.Expired;
  if (gatewayStatus === 0) return DialingState.GatewayInactive;
  if (row.engine_state) return row.engine_state;
  if (!row.timezone_dialing) {
    const local = localTime(now, timeZone);
    if (!enabledWeekdays(row).includes(local.isoWeekday)) return DialingState.NotADialingDay;
    if (!insideDailyWindow(local.time, row.daily_start_time, row.daily_stop_time)) return DialingState.OutsideHours;
  }
  // Pending and InProcess are the same numbers for voice and SMS subscribers.
  const counts = subscribers ?? new Map<number, number>();
  const open = (counts.get(SubscriberStatus.Pending) ?? 0) + (counts.get(SubscriberStatus.InProcess) ?? 0);
  if (open === 0) return row.totalcontact > 0 || counts.size > 0 ? DialingState.AllDone : DialingState.NoSubscribers;
  return kind.activeState;
}

/** Subscribers by status under the names of the kind's statuses, and their total. */
export function subscriberCounts(kind: CampaignKind, counts: Map<number, number> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, status] of Object.entries(kind.subscriberStatuses)) out[name] = counts?.get(status) ?? 0;
  out.total = [...(counts?.values() ?? [])].reduce((a, b) => a + b, 0);
  return out;
}
