/**
 * The claim's last gate (issue 16, items 3–4): of the subscribers a campaign claimed, those that
 * the contact caps (the owner's, counted across the owner's campaigns; the instance's, counted
 * across every campaign) or the legal calling hours (the owner's and the instance's, read in
 * each contact's local time) forbid now are not dialled. They stay PENDING — never FAIL — with
 * their next attempt moved to when they are allowed and a wait_reason that the campaign read
 * counts (src/campaign/contact-waits.ts). One statement per claim (store/contact-history.ts),
 * none when no rule is on.
 */
import type { Db } from '../db/database.ts';
import { capsOn, combinedHours, parseCallingHours, parseContactCaps } from '../campaign/contact-policy.ts';
import type { EngineContext } from './context.ts';
import { holdSubscribers, ownerPolicy } from './store/contact-history.ts';

/** A stored setting, read as the API wrote it; anything else is off (the API never stores it). */
function stored<T>(value: unknown, parse: (v: unknown) => { value: T | null } | { error: string }): T | null {
  if (value === null || value === undefined) return null;
  const parsed = parse(value);
  return 'value' in parsed ? parsed.value : null;
}

/** The claimed `ids` that may be dialled now, in claim order; the others are held (see above). */
export async function holdBack(tx: Db, ctx: EngineContext, campaign: { user_id: number }, ids: number[]): Promise<number[]> {
  const owner = await ownerPolicy(tx, campaign.user_id);
  const ownerCaps = stored(owner?.contact_caps, parseContactCaps);
  const instanceCaps = ctx.config.contactCaps ?? null;
  const hours = combinedHours(stored(owner?.calling_hours, parseCallingHours), ctx.config.callingHours ?? null);
  if (!capsOn(ownerCaps) && !capsOn(instanceCaps) && !hours) return ids;
  const held = new Set(
    await holdSubscribers(tx, ids, ctx.clock.now().toISOString(), {
      ownerId: campaign.user_id,
      ownerCaps: capsOn(ownerCaps) ? ownerCaps : null,
      instanceCaps: capsOn(instanceCaps) ? instanceCaps : null,
      hours,
      instanceZone: ctx.config.timeZone,
    }),
  );
  return held.size ? ids.filter((id) => !held.has(id)) : ids;
}
