/** Payments (contract §3): the payment and the balance it raises are written together. */
import type { Db } from '../../db/database.ts';
import { userChanged } from '../../http/user-cache.ts';
import { addToBalance } from '../../users/users.repository.ts';
import { insertPayment, type PaymentRow } from './payment.repository.ts';

export async function recordPayment(
  db: Db,
  values: { user_id: number; amount: string; description: string },
): Promise<PaymentRow> {
  const payment = await db.transaction(async (tx) => {
    const row = await insertPayment(tx, values);
    await addToBalance(tx, values.user_id, values.amount);
    return row;
  });
  // Committed: this process's next read of the user shows the new balance at once.
  userChanged(values.user_id);
  return payment;
}
