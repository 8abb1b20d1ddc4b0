/** Payments (contract §3): the payment and the balance it raises are written together. */
import type { Db } from '../../db/database.ts';
import { addToBalance } from '../users/users.repository.ts';
import { insertPayment, type PaymentRow } from './payment.repository.ts';

export async function recordPayment(
  db: Db,
  values: { user_id: number; amount: string; description: string },
): Promise<PaymentRow> {
  return db.transaction(async (tx) => {
    const payment = await insertPayment(tx, values);
    await addToBalance(tx, values.user_id, values.amount);
    return payment;
  });
}
