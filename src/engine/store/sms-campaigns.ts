/**
 * The SMS campaigns as the engine reads them: the claim's row lock. (The START list a pass walks,
 * END and engine_state are shared with voice campaigns: campaigns.ts.)
 */
import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import { CampaignStatus, smsCampaigns } from '../../db/schema.ts';

export type SmsCampaignRow = typeof smsCampaigns.$inferSelect;

/** The START SMS campaign `id`, locked `for update skip locked`. */
export async function lockStartSmsCampaign(tx: Db, id: number): Promise<SmsCampaignRow | undefined> {
  const [c] = await tx
    .select()
    .from(smsCampaigns)
    .where(and(eq(smsCampaigns.id, id), eq(smsCampaigns.status, CampaignStatus.Start)))
    .for('update', { skipLocked: true });
  return c;
}
