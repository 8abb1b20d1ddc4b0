/**
 * Recording what the drivers answered (contract §5–§6), many messages in ONE statement (each
 * message's writes are atomic together because the whole batch is): the message becomes 'sent'
 * (gateway id, send_date) and its cost = sms_rate × parts is charged to the owner's balance in
 * SQL numeric, the subscriber COMPLETE; or the message 'failed' (error, cost 0: a failed send is
 * not charged) and the subscriber PENDING again after `intervalretry` while attempts remain
 * (1 + maxretry in all), else FAIL. A delivery report may arrive before this (a fast gateway):
 * a message whose status a report already changed was sent, and keeps the report's status.
 * A message is recorded once: recording clears its engine_id, and only rows with one are taken.
 * Crash recovery (../recover.ts) settles a dead engine's unsent messages the same way, as failed
 * ENGINE_RESTART. The statement: ../store/sms-messages.ts settleMessages.
 */
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/database.ts';
import type { SubmitResult } from '../../drivers/sms/driver.ts';
import { settleMessages } from '../store/sms-messages.ts';

export type SendResult = { messageId: number } & SubmitResult;

/** Records a batch of driver answers at `at` (those of messages where `onlyIf` holds); returns how many messages were recorded. */
export async function recordResults(db: Db, results: SendResult[], at: Date, onlyIf?: SQL): Promise<number> {
  if (!results.length) return 0;
  const rows = results.map((r) =>
    r.ok ? { id: r.messageId, ok: true, gid: r.gatewayMessageId, error: '', retry: false } : { id: r.messageId, ok: false, gid: '', error: r.error, retry: r.retry },
  );
  return settleMessages(db, rows, at, onlyIf);
}
