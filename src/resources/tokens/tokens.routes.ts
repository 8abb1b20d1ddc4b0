/**
 * /rest-api/tokens/ — API tokens without a shell (issue 11 §2). Anyone manages their own
 * tokens; an admin anyone's (`user`). A key is answered once, at creation, and stored only
 * hashed: lists show its prefix. DELETE revokes a token: it stops working at once, since every
 * token request looks its row up (auth.ts). No update (405): a token has nothing to change.
 */
import { type AppDeps, type Api, fieldContext, recordId, type Resource } from '../../http/api.ts';
import { notFound } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { integerFilters } from '../../http/filters.ts';
import { recordUrl } from '../../http/links.ts';
import { envelopeOf, paginate } from '../../http/pagination.ts';
import { allOf } from '../../http/scope.ts';
import { apiTokens } from '../../db/schema.ts';
import { issueToken } from '../users/users.service.ts';
import { presentToken } from './tokens.present.ts';
import { countTokens, deleteToken, findToken, listTokens, visibleTokens } from './tokens.repository.ts';
import { TokenCreated, TokenRecord, tokenFields } from './tokens.schema.ts';

const tags = ['tokens'];

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;

  api.get('/tokens/', { schema: { tags, response: { 200: envelopeOf(TokenRecord) } } }, async (request) => {
    const where = allOf(visibleTokens(request.user), ...integerFilters(request, { user_id: apiTokens.user_id }));
    return paginate(
      request,
      () => countTokens(db, where),
      (limit, offset) => listTokens(db, where, limit, offset),
      (row) => presentToken(request, row),
    );
  });

  api.get('/tokens/:id/', { schema: { tags, response: { 200: TokenRecord } } }, async (request) => {
    const row = await findToken(db, request.user, recordId(request));
    if (!row) throw notFound();
    return presentToken(request, row);
  });

  api.post('/tokens/', { schema: { tags, body: bodySchema(tokenFields), response: { 201: TokenCreated } } }, async (request, reply) => {
    const values = await parseBody(tokenFields, request.body, fieldContext(db, request));
    const { key, token } = await issueToken(db, values.user ?? request.user.id);
    const row = (await findToken(db, request.user, token.id)) as NonNullable<Awaited<ReturnType<typeof findToken>>>;
    return reply
      .code(201)
      .header('location', recordUrl(request, 'tokens', token.id))
      .send({ ...presentToken(request, row), key });
  });

  api.delete('/tokens/:id/', { schema: { tags } }, async (request, reply) => {
    const id = recordId(request);
    if (!(await findToken(db, request.user, id))) throw notFound();
    await deleteToken(db, id);
    return reply.code(204).send();
  });
}

export const tokensResource: Resource = { name: 'tokens', routes };
