/** GET /rest-api/users/ — read-only (contract §3): an admin sees all, anyone else themself. */
import { type AppDeps, type Api, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { ownedBy } from '../../http/scope.ts';
import { users } from '../../db/schema.ts';
import { presentUser } from './users.present.ts';
import { countUsers, listUsers } from '../../users/users.repository.ts';
import { UserRecord } from './users.schema.ts';

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/users/', { schema: { tags: ['users'], response: { 200: envelopeOf(UserRecord) } } }, async (request) => {
    const where = ownedBy(request.user, users.id);
    return paginate(
      request,
      () => countUsers(db, where),
      (limit, offset) => listUsers(db, where, limit, offset),
      (row) => presentUser(request, row),
    );
  });

  api.get('/users/:id/', { schema: { tags: ['users'], response: { 200: UserRecord } } }, async (request) => {
    const id = recordId(request);
    if (!request.user.is_admin && id !== request.user.id) throw notFound();
    // From the user cache: no database round trip when the row is known (see user-cache.ts).
    const row = await api.userCache.byId(db, id);
    if (!row) throw notFound();
    return presentUser(request, row);
  });
}

export const usersResource: Resource = { name: 'users', routes };
