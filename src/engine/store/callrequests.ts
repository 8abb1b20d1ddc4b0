/**
 * The callrequests as the engine writes them: the lines in use (CALLING, per campaign and
 * gateway), the CALLING rows a claim inserts (one statement for the batch), the CALLING rows
 * dead engines left (recover.ts), and each call's final status (outcome.ts).
 */
import { type SQL, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../../db/database.ts';
import { CallRequestStatus } from '../../db/schema.ts';
import { idArray, json } from '../../db/sql.ts';

/** CALLING callrequests on `gatewayId`: all of them, and `campaignId`'s (reads callrequests_in_flight_idx). */
export async function callingLines(tx: Db, campaignId: number, gatewayId: number): Promise<{ campaign: number; gateway: number }> {
  const [n] = await queryRows<{ campaign: number; gateway: number }>(
    tx,
    sql`select count(*) filter (where campaign_id = ${campaignId})::int as campaign, count(*)::int as gateway
        from callrequests where status = ${CallRequestStatus.Calling} and gateway_id = ${gatewayId}`,
  );
  return n;
}

/** A call to insert CALLING. */
export interface NewCall {
  subscriber_id: number;
  call_uuid: string;
  phone_number: string;
  /** The number's key (the subscriber's): what the contact caps count by. */
  phone_key: string;
  callerid: string;
  /** The caller id group's number shown (callerid-rotation.ts); null: the campaign's callerid. */
  callerid_id?: number | null;
  attempt: number;
}

/** Inserts the calls CALLING for one campaign, gateway and engine at `now`; returns their ids by call_uuid. */
export function insertCallingCallrequests(
  tx: Db,
  at: { campaignId: number; gatewayId: number; engineId: string; now: string },
  values: NewCall[],
): Promise<{ id: number; call_uuid: string }[]> {
  return queryRows<{ id: number; call_uuid: string }>(
    tx,
    sql`insert into callrequests (campaign_id, subscriber_id, status, call_uuid, phone_number, phone_key, callerid, callerid_id, gateway_id, attempt, engine_id, call_time)
        select ${at.campaignId}, v.subscriber_id, ${CallRequestStatus.Calling}, v.call_uuid, v.phone_number, v.phone_key, v.callerid, v.callerid_id, ${at.gatewayId}, v.attempt,
          ${at.engineId}, ${at.now}::timestamptz
        from jsonb_to_recordset(${json(values)}) as v(subscriber_id bigint, call_uuid text, phone_number text, phone_key text, callerid text, callerid_id int, attempt int)
        returning id, call_uuid`,
  );
}

/** A CALLING call of a dead engine, with what its outcome needs. */
export interface OrphanCall {
  id: number;
  call_uuid: string;
  campaign_id: number;
  user_id: number;
  subscriber_id: number | null;
  contact_id: number | null;
  phone_number: string;
  callerid: string;
  call_time: string | null;
}

/** Up to 1000 CALLING calls where `onlyIf` holds (a predicate on `r`: heartbeats.ts deadEngine, or recover.ts's lost claims), by id. */
export function findOrphanCalls(db: Db, onlyIf: SQL): Promise<OrphanCall[]> {
  return queryRows<OrphanCall>(
    db,
    sql`select r.id, r.call_uuid, r.campaign_id, c.user_id, r.subscriber_id, s.contact_id, r.phone_number, r.callerid, r.call_time
        from callrequests r join campaigns c on c.id = r.campaign_id left join subscribers s on s.id = r.subscriber_id
        where r.status = ${CallRequestStatus.Calling} and ${onlyIf} order by r.id limit 1000`,
  );
}

/** A call's final status, as settleCallrequests reads it. */
export interface SettledCall {
  id: number;
  status: number;
  cause_name: string;
  cause: number;
  completed: boolean;
  /** Answered, and not by a machine (contact caps' quiet period). */
  conversation: boolean;
}

/**
 * Settles the calls still CALLING among `rows`, and where `onlyIf` (a predicate on `r`) holds;
 * returns the ids settled. A call closed meanwhile (recovered as ENGINE_RESTART by another
 * engine that took this one for dead) is left as it is.
 */
export async function settleCallrequests(tx: Db, rows: SettledCall[], onlyIf: SQL = sql`true`): Promise<Set<number>> {
  const settled = await queryRows<{ id: number }>(
    tx,
    sql`update callrequests r set updated_date = now(), status = v.status, hangup_cause = v.cause_name,
        hangup_cause_q850 = v.cause, completed = v.completed, conversation = v.conversation
      from jsonb_to_recordset(${json(rows)}) as v(id bigint, status int, cause_name text, cause int, completed boolean, conversation boolean)
      where r.id = v.id and r.status = ${CallRequestStatus.Calling} and ${onlyIf}
      returning r.id`,
  );
  return new Set(settled.map((row) => Number(row.id)));
}

/** Which of the calls `ids` are no longer CALLING (closed by another engine's recovery). */
export async function closedCalls(db: Db, ids: number[]): Promise<number[]> {
  if (!ids.length) return [];
  const rows = await queryRows<{ id: number }>(
    db,
    sql`select id from callrequests where id = any(${idArray(ids)}) and status <> ${CallRequestStatus.Calling}`,
  );
  return rows.map((row) => Number(row.id));
}
