/**
 * Campaign rows → JSON, voice and SMS: what every record shows (links, dates, the window, the
 * computed `dialing_state` and `progress`), then the kind's own fields (its `presentOwn`),
 * loading phonebooks, gateways, subscribers and activity in a few set queries.
 */
import type { FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.ts';
import { SubscriberStatus } from '../../db/schema.ts';
import { dialingState, subscriberCounts } from '../../campaign/dialing-state.ts';
import { type WaitingCounts, waitingState } from '../../campaign/contact-waits.ts';
import type { AnyCampaignRow } from '../../campaign/kinds.ts';
import { linkedPhonebooks } from '../../campaign/phonebook-links.ts';
import type { WindowFields } from '../../campaign/window.ts';
import { linker } from '../../http/links.ts';
import { isoTime } from '../../http/present.ts';
import { gatewayStatuses, subscribersByStatus } from './repository.ts';
import type { CampaignResource } from './resource-kind.ts';

/** The calling window of a voice or SMS campaign row, as the record shows it. */
export function presentWindow(row: WindowFields) {
  return {
    daily_start_time: row.daily_start_time,
    daily_stop_time: row.daily_stop_time,
    monday: row.monday,
    tuesday: row.tuesday,
    wednesday: row.wednesday,
    thursday: row.thursday,
    friday: row.friday,
    saturday: row.saturday,
    sunday: row.sunday,
  };
}

/** With nothing due but subscribers held by contact caps or calling hours (issue 16), the state says how many and why. */
function heldState(state: string, waiting: unknown, subscribers: Map<number, number> | undefined): string {
  const w = waiting as WaitingCounts | undefined;
  if (!w || w.total === 0) return state;
  const open = (subscribers?.get(SubscriberStatus.Pending) ?? 0) + (subscribers?.get(SubscriberStatus.InProcess) ?? 0);
  const idle = state === 'idle (no subscriber due)' || (state === 'dialing' && open <= w.total);
  return idle ? waitingState(w) : state;
}

/** Presents campaign rows of the resource's kind. */
export async function presentCampaigns(
  request: FastifyRequest,
  db: Db,
  resource: CampaignResource,
  rows: AnyCampaignRow[],
  { timeZone, now = new Date() }: { timeZone: string; now?: Date },
): Promise<Record<string, unknown>[]> {
  const { kind } = resource;
  const ids = rows.map((r) => r.id);
  const gatewayIds = rows.flatMap((r) => kind.gatewayId(r) ?? []);
  const [books, subscribers, activity, gateways] = await Promise.all([
    linkedPhonebooks(db, kind, ids),
    subscribersByStatus(db, kind, ids),
    resource.activityOf(db, ids),
    gatewayStatuses(db, kind, gatewayIds),
  ]);
  const link = linker(request);
  return rows.map((row) => {
    const bySubscriberStatus = subscribers.get(row.id);
    return {
      id: row.id,
      url: link(resource.path, row.id) as string,
      name: row.name,
      description: row.description,
      callerid: row.callerid,
      phonebook: (books.get(row.id) ?? []).map((id) => link('phonebook', id) as string),
      startingdate: isoTime(row.startingdate),
      expirationdate: isoTime(row.expirationdate),
      user: link('users', row.user_id) as string,
      status: row.status,
      frequency: row.frequency,
      callmaxduration: row.callmaxduration,
      maxretry: row.maxretry,
      intervalretry: row.intervalretry,
      ...presentWindow(row),
      end_when_done: row.end_when_done,
      has_been_started: row.has_been_started,
      totalcontact: row.totalcontact,
      dialing_state: heldState(dialingState(kind, row, now, timeZone, gateways.get(kind.gatewayId(row) ?? 0), bySubscriberStatus), activity.get(row.id)?.waiting, bySubscriberStatus),
      progress: { subscribers: subscriberCounts(kind, bySubscriberStatus), ...activity.get(row.id) },
      created_date: isoTime(row.created_date) as string,
      updated_date: isoTime(row.updated_date) as string,
      ...resource.presentOwn(row, link),
    };
  });
}
