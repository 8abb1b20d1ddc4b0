/**
 * The text an SMS campaign sends (issue 17): its own text_message, or, when that is empty, the
 * sms_text of its SMS template. Read by the start check and by the engine when it claims messages.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/database.ts';
import { smsTemplates } from '../db/schema.ts';

/** The campaign's text before placeholders are filled; '' when it has neither text nor template. */
export async function smsTextOf(db: Db, campaign: { text_message: string; sms_template_id: number | null }): Promise<string> {
  if (campaign.text_message.trim() !== '' || campaign.sms_template_id === null) return campaign.text_message;
  const [template] = await db.select({ sms_text: smsTemplates.sms_text }).from(smsTemplates).where(eq(smsTemplates.id, campaign.sms_template_id));
  return template?.sms_text ?? '';
}

/** Why an SMS campaign cannot start for want of a text, or undefined. */
export async function smsTextProblem(db: Db, campaign: { text_message: string; sms_template_id: number | null }): Promise<string | undefined> {
  return (await smsTextOf(db, campaign)).trim() === '' ? 'it has no text_message and no SMS template to send.' : undefined;
}
