/**
 * Caller-id rotation (contract §6, issue 16 item 5). With a campaign's callerid_group, each call
 * shows one of the group's numbers whose areacode matches the dialled number (campaign/area-code.ts),
 * the most specific match first ('*' last), and among equally specific ones the least used today,
 * skipping numbers at their group's daily_cap and numbers resting under its answer-rate floor.
 * When none is left the call shows the campaign's callerid. One query reads and locks the group's
 * usable numbers for the whole claim, one statement counts the calls given: no query per call.
 */
import type { Db } from '../db/database.ts';
import { areaCodeMatch, areaCodeTargets } from '../campaign/area-code.ts';
import { usageDay } from '../campaign/callerid-usage.ts';
import { countCallerIdCalls, type UsableCallerId, usableCallerIds } from './store/callerids.ts';

/** The caller id a call shows, and the group number's id (null: the campaign's callerid). */
export interface CallerIdPick {
  num: string;
  id: number | null;
}

/** The best usable number for one dialled number, given the calls already given in this claim. */
function pickOne(usable: UsableCallerId[], given: Map<number, number>, number: string): UsableCallerId | undefined {
  const targets = areaCodeTargets(number);
  let best: { u: UsableCallerId; match: number; calls: number } | undefined;
  for (const u of usable) {
    const match = areaCodeMatch(u.areacode, targets);
    if (match < 0) continue;
    const calls = u.calls_today + (given.get(u.id) ?? 0);
    if (u.daily_cap !== null && calls >= u.daily_cap) continue;
    if (!best || match > best.match || (match === best.match && calls < best.calls)) best = { u, match, calls };
  }
  return best?.u;
}

/** The caller ids of a claim's calls (in the order of `numbers`), counted on the numbers used. */
export async function pickCallerIds(
  tx: Db,
  campaign: { callerid: string; callerid_group_id: number | null },
  numbers: string[],
  at: { now: Date; timeZone: string },
): Promise<CallerIdPick[]> {
  const fallback: CallerIdPick = { num: campaign.callerid, id: null };
  if (!campaign.callerid_group_id || !numbers.length) return numbers.map(() => fallback);
  const day = usageDay(at.now, at.timeZone);
  const usable = await usableCallerIds(tx, campaign.callerid_group_id, day, at.now.toISOString());
  const given = new Map<number, number>();
  const picks = numbers.map((number) => {
    const u = pickOne(usable, given, number);
    if (!u) return fallback;
    given.set(u.id, (given.get(u.id) ?? 0) + 1);
    return { num: u.callerid_num, id: u.id };
  });
  await countCallerIdCalls(tx, day, [...given].map(([id, n]) => ({ id, n })));
  return picks;
}
