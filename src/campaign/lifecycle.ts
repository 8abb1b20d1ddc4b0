/**
 * A campaign's life (contract §5), one for voice and SMS campaigns: the status transitions, what
 * a start checks, and one function per transition, each writing the state change and the work it
 * causes in the transaction it is given (the first start spools the subscribers, and for voice
 * freezes the survey; abort marks pending subscribers ABORT). What differs by kind is the kind's
 * (kinds.ts). Each transition writes its event (events.ts) in the same transaction.
 */
import { eq, sql } from 'drizzle-orm';
import { type Db, queryRows } from '../db/database.ts';
import { CampaignStatus, GatewayStatus, SubscriberStatus } from '../db/schema.ts';
import { invalid } from '../http/errors.ts';
import { appendEvents, EventType, type EventTypeName } from './events.ts';
import { type CampaignInsertOf, type CampaignKind, type CampaignRowOf, type CampaignTable, gatewayStatus, type SharedCampaignColumns } from './kinds.ts';
import { spoolCampaign } from './spool.ts';

const statusNames: Record<number, string> = { 0: 'NEW', 1: 'START', 2: 'PAUSE', 3: 'ABORT', 4: 'END' };
const describeStatus = (status: number) => `${status} (${statusNames[status] ?? '?'})`;

/** The transitions of contract §5: from → allowed targets. 3 and 4 are final. */
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

/** Writes columns of a campaign of the kind (and its updated_date); returns the row. */
export async function writeCampaign<T extends CampaignTable>(
  db: Db,
  kind: CampaignKind<T>,
  id: number,
  values: Partial<CampaignInsertOf<T>> | SharedCampaignColumns,
): Promise<CampaignRowOf<T>> {
  const table = kind.table as CampaignTable;
  const rows = await db
    .update(table)
    .set({ ...values, updated_date: sql`now()` })
    .where(eq(table.id, id))
    .returning();
  return rows[0] as CampaignRowOf<T>;
}

/** Why the campaign cannot start now (contract §5, §8), or undefined when it can. */
export async function startProblem<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>): Promise<string | undefined> {
  const why = await startObstacle(db, kind, row);
  return why && `The ${kind.noun} cannot start: ${why}`;
}

/** What stops the start, in the order a caller fixes them: phonebook, the kind's own, gateway. */
async function startObstacle<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>): Promise<string | undefined> {
  const t = kind.tables;
  const [books] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from ${t.phonebooks} where ${t.campaignColumn} = ${row.id}`);
  if (Number(books?.n ?? 0) === 0) return 'it has no phonebook.';
  const own = await kind.startProblem?.(db, row);
  if (own) return own;
  const gatewayId = kind.gatewayId(row);
  if (gatewayId === null) return `it has no ${kind.gatewayField}.`;
  if ((await gatewayStatus(db, kind, gatewayId)) !== GatewayStatus.Active) return `its ${kind.gatewayNoun} is inactive.`;
  return undefined;
}

const refuse = (why: string) => invalid({ status: [why] });

/**
 * START (from NEW, or from PAUSE): checks it can start; the first start spools the subscribers
 * (and writes what the kind freezes). Throws 400 {"status": [why]} and changes nothing when it cannot.
 */
export async function startCampaign<T extends CampaignTable>(
  db: Db,
  kind: CampaignKind<T>,
  row: CampaignRowOf<T>,
  timeZone: string,
): Promise<CampaignRowOf<T>> {
  const problem = await startProblem(db, kind, row);
  if (problem) throw refuse(problem);
  if (row.has_been_started) return writeCampaign(db, kind, row.id, { status: CampaignStatus.Start, engine_state: null });
  const frozen = (await kind.firstStartColumns?.(db, row)) ?? {};
  await spoolCampaign(db, row.id, { target: kind.tables, timeZone });
  return writeCampaign(db, kind, row.id, {
    ...frozen,
    status: CampaignStatus.Start,
    has_been_started: true,
    started_date: sql`now()` as never,
    engine_state: null,
  });
}

/** PAUSE: no new calls or messages; those in progress finish (the engine sees the status). */
export function pauseCampaign<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>): Promise<CampaignRowOf<T>> {
  return writeCampaign(db, kind, row.id, { status: CampaignStatus.Pause });
}

/**
 * ABORT: final; pending subscribers become ABORT (calls in progress are hung up by the engine,
 * messages being sent are recorded as they end). Pending, Pause and Abort are the same numbers
 * in both subscriber tables.
 */
export async function abortCampaign<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>): Promise<CampaignRowOf<T>> {
  const t = kind.tables;
  const S = SubscriberStatus;
  await db.execute(
    sql`update ${t.subscribers} set status = ${S.Abort}, reason = 'campaign aborted', updated_date = now()
        where ${t.campaignColumn} = ${row.id} and status in (${S.Pending}, ${S.Pause})`,
  );
  return writeCampaign(db, kind, row.id, { status: CampaignStatus.Abort, ended_date: sql`now()` as never });
}

/** END: final; no new calls or messages (the engine closes those in flight). */
export function endCampaign<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>): Promise<CampaignRowOf<T>> {
  return writeCampaign(db, kind, row.id, { status: CampaignStatus.End, ended_date: sql`now()` as never });
}

/** Applies a PATCH `status`: a legal transition, or 400 naming both states (contract §5). */
export async function changeStatus<T extends CampaignTable>(
  db: Db,
  kind: CampaignKind<T>,
  row: CampaignRowOf<T>,
  to: number,
  timeZone: string,
): Promise<CampaignRowOf<T>> {
  if (to === row.status) return row;
  const problem = transitionProblem(row.status, to);
  if (problem) throw refuse(problem);
  const changed = await applyStatus(db, kind, row, to, timeZone);
  const type = to === CampaignStatus.Start ? (row.has_been_started ? EventType.CampaignResumed : EventType.CampaignStarted) : statusEvents[to];
  await appendEvents(db, [campaignEvent(kind, changed, type, to === CampaignStatus.End ? { why: 'by user' } : {})]);
  return changed;
}

const statusEvents: Record<number, EventTypeName> = {
  [CampaignStatus.Pause]: EventType.CampaignPaused,
  [CampaignStatus.Abort]: EventType.CampaignAborted,
  [CampaignStatus.End]: EventType.CampaignEnded,
};

function applyStatus<T extends CampaignTable>(db: Db, kind: CampaignKind<T>, row: CampaignRowOf<T>, to: number, timeZone: string): Promise<CampaignRowOf<T>> {
  switch (to) {
    case CampaignStatus.Start:
      return startCampaign(db, kind, row, timeZone);
    case CampaignStatus.Pause:
      return pauseCampaign(db, kind, row);
    case CampaignStatus.Abort:
      return abortCampaign(db, kind, row);
    default:
      return endCampaign(db, kind, row);
  }
}

/** A campaign event: which campaign (kind, link, name) and its status, plus `extra` (e.g. why it ended). */
export function campaignEvent(
  kind: CampaignKind,
  row: { id: number; user_id: number; name: string; status: number },
  type: EventTypeName,
  extra: Record<string, unknown> = {},
) {
  return {
    type,
    userId: row.user_id,
    campaignId: row.id,
    data: { campaign: `/rest-api/${kind.resource}/${row.id}/`, kind: kind.name, id: row.id, name: row.name, status: row.status, ...extra },
  };
}
