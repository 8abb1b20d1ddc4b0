/**
 * The two computed fields of a campaign read (contract §5): `dialing_state`, why it is or is
 * not dialing now, and `progress`, its subscribers by status, calls placed, answered and cost;
 * and the status transitions of contract §5, shared with SMS campaigns.
 */
import { CampaignStatus, SubscriberStatus } from '../../db/schema.ts';
import { enabledWeekdays, insideDailyWindow, localTime, type WindowFields } from '../../campaign/window.ts';
import { decimalString } from '../../http/present.ts';
import type { CampaignTotals } from './campaign.repository.ts';

/** What `dialingState` reads of a campaign: a voice or an SMS campaign row. */
export type DialingRow = WindowFields & {
  status: number;
  engine_state: string | null;
  totalcontact: number;
  timezone_dialing?: boolean;
};

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
  row: DialingRow,
  now: Date,
  timeZone: string,
  gatewayStatus: number | undefined,
  totals: Pick<CampaignTotals, 'bySubscriberStatus'> | undefined,
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

/** Subscribers by status under the names of `statuses` (voice or SMS), and their total. */
export function subscriberCounts<K extends string>(counts: Map<number, number> | undefined, statuses: Record<K, number>): Record<K | 'total', number> {
  const out = {} as Record<K | 'total', number>;
  for (const name of Object.keys(statuses) as K[]) out[name] = counts?.get(statuses[name]) ?? 0;
  out.total = [...(counts?.values() ?? [])].reduce((a, b) => a + b, 0);
  return out;
}

/** The `progress` object of a campaign read. */
export function progressOf(totals: CampaignTotals | undefined) {
  const S = SubscriberStatus;
  return {
    subscribers: subscriberCounts(totals?.bySubscriberStatus, {
      pending: S.Pending,
      in_process: S.InProcess,
      sent: S.Sent,
      completed: S.Completed,
      fail: S.Fail,
      not_authorized: S.NotAuthorized,
      abort: S.Abort,
      pause: S.Pause,
    }),
    calls_placed: totals?.calls_placed ?? 0,
    answered: totals?.answered ?? 0,
    total_cost: decimalString(totals?.total_cost ?? '0'),
  };
}

const statusNames: Record<number, string> = { 0: 'NEW', 1: 'START', 2: 'PAUSE', 3: 'ABORT', 4: 'END' };
const describeStatus = (status: number) => `${status} (${statusNames[status] ?? '?'})`;

/** The transitions of contract §5 (voice and SMS campaigns): from → allowed targets. 3 and 4 are final. */
export const statusTransitions: Record<number, readonly number[]> = {
  [CampaignStatus.New]: [CampaignStatus.Start, CampaignStatus.Abort, CampaignStatus.End],
  [CampaignStatus.Start]: [CampaignStatus.Pause, CampaignStatus.Abort, CampaignStatus.End],
  [CampaignStatus.Pause]: [CampaignStatus.Start, CampaignStatus.Abort, CampaignStatus.End],
  [CampaignStatus.Abort]: [],
  [CampaignStatus.End]: [],
};

/** Why a PATCH `status` from → to is refused (naming both states), or undefined when it is legal. */
export function transitionProblem(from: number, to: number): string | undefined {
  if (from === to || statusTransitions[from]?.includes(to)) return undefined;
  return `Cannot change status from ${describeStatus(from)} to ${describeStatus(to)}.`;
}
