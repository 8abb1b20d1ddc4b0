/**
 * The two computed fields of a campaign read (contract §5): `dialing_state`, why it is or is
 * not dialing now, and `progress`, its subscribers by status, calls placed, answered and cost.
 */
import { CampaignStatus, SubscriberStatus } from '../../db/schema.ts';
import { enabledWeekdays, insideDailyWindow, localTime } from '../../engine/window.ts';
import { decimalString } from '../../http/present.ts';
import type { CampaignRow, CampaignTotals } from './campaign.repository.ts';

export const DialingState = {
  Dialing: 'dialing',
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
 * and the subscribers left. The daily window is read in the instance zone; with
 * `timezone_dialing` it is per subscriber, which only the engine can tell.
 */
export function dialingState(
  row: CampaignRow,
  now: Date,
  timeZone: string,
  gatewayStatus: number | undefined,
  totals: CampaignTotals | undefined,
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
  const counts = totals?.bySubscriberStatus ?? new Map<number, number>();
  const open = (counts.get(SubscriberStatus.Pending) ?? 0) + (counts.get(SubscriberStatus.InProcess) ?? 0);
  if (open === 0) return row.totalcontact > 0 || counts.size > 0 ? DialingState.AllDone : DialingState.NoSubscribers;
  return DialingState.Dialing;
}

/** The `progress` object of a campaign read. */
export function progressOf(totals: CampaignTotals | undefined) {
  const counts = totals?.bySubscriberStatus ?? new Map<number, number>();
  const n = (status: number) => counts.get(status) ?? 0;
  let total = 0;
  for (const v of counts.values()) total += v;
  return {
    subscribers: {
      pending: n(SubscriberStatus.Pending),
      in_process: n(SubscriberStatus.InProcess),
      sent: n(SubscriberStatus.Sent),
      completed: n(SubscriberStatus.Completed),
      fail: n(SubscriberStatus.Fail),
      not_authorized: n(SubscriberStatus.NotAuthorized),
      abort: n(SubscriberStatus.Abort),
      pause: n(SubscriberStatus.Pause),
      total,
    },
    calls_placed: totals?.calls_placed ?? 0,
    answered: totals?.answered ?? 0,
    total_cost: decimalString(totals?.total_cost ?? '0'),
  };
}
