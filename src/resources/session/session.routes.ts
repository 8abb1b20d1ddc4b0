/**
 * /rest-api/session/ — the operators' console signs in here (issue 15 §2). Not in the API root
 * (a sign-in, not a resource of the contract) and public: each route authenticates itself, by
 * password (POST) or by the session cookie (GET, DELETE). src/http/sessions.ts holds the cookie
 * and the CSRF rules, src/http/auth.ts the password check and its throttle.
 *
 * - POST {username, password} → 201 {username, is_admin, csrf_token, expires} and the cookie.
 *   A wrong pair is 401 and counts toward the login throttle (429), as an HTTP Basic failure.
 * - GET → 200 the same body while the session lives; 401 otherwise.
 * - DELETE → 204: the session ends (its row is deleted) and the cookie is cleared. It needs the
 *   CSRF header like every write made with the cookie.
 */
import type { FastifyRequest } from 'fastify';
import type { AppDeps, Api, Resource } from '../../http/api.ts';
import type { AuthUser } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { bodySchema, parseBody } from '../../http/fields.ts';
import { checkCsrf, checkOrigin, clearedCookie, type LiveSession, sessionCookie } from '../../http/sessions.ts';
import { presentSession } from './session.present.ts';
import { CsrfHeaders, SessionRecord, signInFields } from './session.schema.ts';

const tags = ['session'];
const config = { public: true };
const bySession = [{ cookie: [] }];

/** 401 for a request without a live session; a stale cookie is cleared. No Basic challenge: a browser would answer it with a dialog. */
function notSignedIn(request: FastifyRequest): AppError {
  const stale = sessionCookie(request) !== undefined;
  return new AppError(
    401,
    { detail: stale ? 'Invalid or expired session.' : 'Authentication credentials were not provided.' },
    stale ? { 'set-cookie': clearedCookie(request) } : {},
  );
}

function routes(api: Api, { database }: AppDeps) {
  const { db } = database;
  const { sessions } = api.authenticator;

  async function signedIn(request: FastifyRequest): Promise<LiveSession> {
    const session = await sessions.fromRequest(db, request);
    if (!session) throw notSignedIn(request);
    return session;
  }

  api.post('/session/', { config, schema: { tags, security: [], body: bodySchema(signInFields), response: { 201: SessionRecord } } }, async (request, reply) => {
    // A page of another site may not sign this browser in (to an account of its choosing).
    checkOrigin(request);
    // No caller yet: the fields read here (text) do not look at it.
    const values = await parseBody(signInFields, request.body, { db, user: undefined as unknown as AuthUser });
    const user = await api.authenticator.login(db, request, values.username as string, values.password as string);
    // Signing in again in the same browser replaces its session rather than leaving it behind.
    const previous = await sessions.fromRequest(db, request);
    if (previous) await sessions.close(db, previous);
    const session = await sessions.open(db, user.id, request, reply);
    return reply.code(201).send(presentSession({ ...user, ...session }));
  });

  api.get('/session/', { config, schema: { tags, security: bySession, response: { 200: SessionRecord } } }, async (request) =>
    presentSession(await signedIn(request)),
  );

  api.delete('/session/', { config, schema: { tags, security: bySession, headers: CsrfHeaders } }, async (request, reply) => {
    const session = await signedIn(request);
    checkCsrf(request, session);
    await sessions.close(db, session);
    return reply.code(204).header('set-cookie', clearedCookie(request)).send();
  });
}

export const sessionResource: Resource = { name: 'session', listed: false, routes };
