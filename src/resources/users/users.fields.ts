/** The `user` field of create requests, shared by every owned resource (contract §3, §8). */
import { type Field, link } from '../../http/fields.ts';
import { findUser } from '../../users/users.repository.ts';

/**
 * A link to a user: an admin may name anyone; anyone else only themself ("Object does not
 * exist" otherwise). Omitted, the owner is the caller: use `values.user ?? ctx.user.id`.
 */
export function userLink({ required = false } = {}): Field<number | null> {
  return link(
    ['users'],
    async (ctx, id) => (ctx.user.is_admin ? Boolean(await findUser(ctx.db, id)) : id === ctx.user.id),
    { required, nullable: !required },
  );
}
