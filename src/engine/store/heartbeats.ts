/**
 * engine_heartbeats: each engine beats its row every pass; recovery (recover.ts) takes an engine
 * whose row is stale (or missing) for dead. `deadEngine` is the one predicate both kinds of
 * in-flight work (voice callrequests, SMS messages) use to find a dead engine's rows.
 *
 * Both the beat and the judging of it are on the database's clock (now()), not the engines':
 * engines on several machines agree on who is silent however far apart their clocks are. With
 * each engine's own clock, one whose clock ran staleMs ahead of another's took it for dead while
 * it lived, and closed and dialled again its calls still up.
 */
import { type SQL, sql } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';

/** Writes (or refreshes) the heartbeat of `engineId`, at the database's now(). */
export async function beat(db: Db, engineId: string): Promise<void> {
  await db.execute(sql`insert into engine_heartbeats (engine_id, heartbeat_at) values (${engineId}, now())
    on conflict (engine_id) do update set heartbeat_at = excluded.heartbeat_at`);
}

/** Removes the heartbeat of `engineId` (a clean stop). */
export async function forgetEngine(db: Db, engineId: string): Promise<void> {
  await db.execute(sql`delete from engine_heartbeats where engine_id = ${engineId}`);
}

/** Which engines count as dead (recover.ts): on PGlite any but this one, on PostgreSQL the silent ones. */
export interface DeadEngines {
  anyOtherEngine: boolean;
  staleMs: number;
}

/**
 * The predicate "the engine in `column` is dead" for a row alias's engine_id column (`r.engine_id`):
 * any engine but `engineId`, or, without `anyOtherEngine`, one whose heartbeat is older than
 * staleMs by the database's clock, or that has none.
 *
 * It locks the stale heartbeat it finds (FOR SHARE) until the statement's transaction ends. An
 * engine back from a silence writes its heartbeat, then asks which of its calls are still its own
 * (engine.ts afterSilence); its heartbeat waits for the lock, so it asks once the calls closed by
 * that transaction are closed. And a heartbeat that commits first is seen by the lock (PostgreSQL
 * reads the row again when it was changed since the statement began): that engine is not dead.
 * Without the lock, a close that began just before the heartbeat went through and committed just
 * after the engine asked left the call both closed (and redialled by the retry) and placed.
 */
export function deadEngine(column: 'r.engine_id' | 'm.engine_id', engineId: string, opts: DeadEngines): SQL {
  const col = sql.raw(column);
  if (opts.anyOtherEngine) return sql`${col} <> ${engineId}`;
  return sql`${col} <> ${engineId} and (
      exists (select 1 from engine_heartbeats h where h.engine_id = ${col}
        and h.heartbeat_at < now() - ${opts.staleMs}::int * interval '1 millisecond' for share of h)
      or not exists (select 1 from engine_heartbeats h where h.engine_id = ${col}))`;
}
