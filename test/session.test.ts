/**
 * Browser sessions (issue 15 §2, src/http/sessions.ts, /rest-api/session/): a sign-in sets an
 * HttpOnly cookie that authenticates every /rest-api/ route; writes made with it need the CSRF
 * header and a same-host Origin; sessions expire, end at sign-out, deactivation or a new
 * password, and failed sign-ins go through the login throttle. Basic and Token are unchanged.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { queryRows } from '../src/db/database.ts';
import { phonebooks, sessions } from '../src/db/schema.ts';
import { changeUser, createToken } from '../src/resources/users/users.service.ts';
import { makeUser, type TestUser, unique } from './factories.ts';
import { call, dbLabel, testApp, testConfig } from './helpers.ts';

const t = await testApp();
const admin = await makeUser(t.database.db, { admin: true });
const alice = await makeUser(t.database.db);
const bob = await makeUser(t.database.db);
const ORIGIN = 'http://localhost:80'; // what app.inject's Host (localhost:80) is, seen from a browser

interface SignedIn {
  /** The Cookie header to send back. */
  cookie: string;
  csrf: string;
  setCookie: string;
  data: { username: string; is_admin: boolean; csrf_token: string; expires: string };
}

async function signInRaw(app: FastifyInstance, body: unknown, headers: Record<string, string> = {}, remoteAddress = '127.0.0.1') {
  const res = await app.inject({
    method: 'POST',
    url: '/rest-api/session/',
    remoteAddress,
    headers: { 'content-type': 'application/json', ...headers },
    payload: JSON.stringify(body),
  });
  return Object.assign(res, { data: res.body ? JSON.parse(res.body) : undefined });
}

async function signIn(user: TestUser, app = t.app, headers: Record<string, string> = {}, remoteAddress?: string): Promise<SignedIn> {
  const res = await signInRaw(app, { username: user.username, password: user.password }, headers, remoteAddress);
  assert.equal(res.statusCode, 201, res.body);
  const setCookie = String(res.headers['set-cookie']);
  const value = /^dialer_session=([^;]+);/.exec(setCookie)?.[1];
  assert.ok(value, `no session cookie in ${setCookie}`);
  return { cookie: `dialer_session=${value}`, csrf: res.data.csrf_token, setCookie, data: res.data };
}

/** A request made as the console makes it: the cookie, and for writes the CSRF header and Origin unless `headers` says otherwise. */
function asBrowser(s: SignedIn, method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown, headers: Record<string, string> = {}, app = t.app) {
  return call(app, undefined, method, url, body, { cookie: s.cookie, ...headers });
}
const csrf = (s: SignedIn) => ({ 'x-csrf-token': s.csrf, origin: ORIGIN });

const phonebookCount = async (user: TestUser) => t.database.db.$count(phonebooks, eq(phonebooks.user_id, user.id));
const sessionRows = (user: TestUser) => t.database.db.select().from(sessions).where(eq(sessions.user_id, user.id));

describe(`sessions (${dbLabel})`, () => {
  test('a sign-in answers 201 with the session and sets an HttpOnly, SameSite=Strict cookie for every path', async () => {
    const s = await signIn(alice);
    assert.deepEqual(Object.keys(s.data).sort(), ['csrf_token', 'expires', 'is_admin', 'username']);
    assert.equal(s.data.username, alice.username);
    assert.equal(s.data.is_admin, false);
    assert.match(s.data.csrf_token, /^[\w-]{32,}$/);
    assert.match(s.data.expires, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    const hours = (Date.parse(s.data.expires) - Date.now()) / 3_600_000;
    assert.ok(hours > 11.9 && hours <= 12, `expires in ${hours} h`);
    const attributes = s.setCookie.split(';').map((a) => a.trim());
    for (const a of ['HttpOnly', 'SameSite=Strict', 'Path=/', `Max-Age=${12 * 3600}`]) assert.ok(attributes.includes(a), `${a} missing: ${s.setCookie}`);
    assert.ok(!attributes.includes('Secure'), 'Secure over plain http: the browser would never send it back');
  });

  test('the database keeps only a hash of the cookie secret', async () => {
    const s = await signIn(bob);
    const secret = s.cookie.split('=')[1];
    const rows = await sessionRows(bob);
    assert.ok(rows.length >= 1);
    assert.ok(!JSON.stringify(rows).includes(secret), 'the secret is stored');
    assert.ok(rows.some((r) => r.secret_hash === crypto.hash('sha256', secret, 'hex')));
  });

  test('the cookie authenticates a list; the API root and the OpenAPI document do not list the session route as a resource', async () => {
    const s = await signIn(alice);
    const pb = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb') });
    const list = await asBrowser(s, 'GET', '/rest-api/phonebook/?page_size=1000');
    assert.equal(list.statusCode, 200, list.body);
    assert.ok(list.data.results.some((r: { url: string }) => r.url === pb.data.url), list.body);
    const root = await asBrowser(s, 'GET', '/rest-api/');
    assert.equal(root.statusCode, 200, root.body);
    assert.ok(!('session' in root.data), root.body);
    const doc = (await call(t.app, undefined, 'GET', '/rest-api/openapi.json')).data;
    assert.equal(doc.components.securitySchemes.cookie.in, 'cookie');
    assert.equal(doc.components.securitySchemes.cookie.name, 'dialer_session');
    assert.deepEqual(Object.keys(doc.paths['/rest-api/session/']).sort(), ['delete', 'get', 'post']);
    assert.deepEqual(doc.paths['/rest-api/session/'].post.security, []);
  });

  test('a write with the cookie needs the CSRF token and a same-host Origin; nothing is created without them', async () => {
    const s = await signIn(alice);
    const before = await phonebookCount(alice);
    const body = { name: unique('pb') };
    const refusals: Array<[Record<string, string>, RegExp]> = [
      [{ origin: ORIGIN }, /^CSRF Failed: CSRF token missing or incorrect\.$/],
      [{ origin: ORIGIN, 'x-csrf-token': `${s.csrf}x` }, /^CSRF Failed: CSRF token missing or incorrect\.$/],
      [{ 'x-csrf-token': s.csrf, origin: 'https://evil.example' }, /^CSRF Failed: Origin checking failed - https:\/\/evil\.example does not match any trusted origins\.$/],
      [{ 'x-csrf-token': s.csrf, origin: 'http://localhost:8080' }, /Origin checking failed/],
      [{ 'x-csrf-token': s.csrf, origin: 'null' }, /Origin checking failed/],
      [{ 'x-csrf-token': s.csrf, 'sec-fetch-site': 'cross-site' }, /^CSRF Failed: /],
    ];
    for (const [headers, detail] of refusals) {
      const res = await asBrowser(s, 'POST', '/rest-api/phonebook/', body, headers);
      assert.equal(res.statusCode, 403, `${JSON.stringify(headers)}: ${res.body}`);
      assert.match(res.data.detail, detail);
    }
    assert.equal(await phonebookCount(alice), before, 'a refused write created a phonebook');
    const created = await asBrowser(s, 'POST', '/rest-api/phonebook/', body, csrf(s));
    assert.equal(created.statusCode, 201, created.body);
    assert.equal(await phonebookCount(alice), before + 1);
    // No Origin at all (an older browser) with the token, and a same-origin fetch: accepted.
    const noOrigin = await asBrowser(s, 'PATCH', created.data.url, { name: unique('pb') }, { 'x-csrf-token': s.csrf, 'sec-fetch-site': 'same-origin' });
    assert.equal(noOrigin.statusCode, 200, noOrigin.body);
    assert.equal((await asBrowser(s, 'DELETE', created.data.url, undefined, { origin: ORIGIN })).statusCode, 403);
    assert.equal((await asBrowser(s, 'DELETE', created.data.url, undefined, csrf(s))).statusCode, 204);
  });

  test('behind a trusted proxy, https gives a Secure cookie and the Origin is checked against the forwarded host', async () => {
    const proxied = await testApp({ database: t.database, config: testConfig({ trustProxy: true }) });
    const forwarded = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'dialer.example.com' };
    const s = await signIn(alice, proxied.app, forwarded);
    assert.ok(s.setCookie.split(';').map((a) => a.trim()).includes('Secure'), s.setCookie);
    const write = (origin: string) => asBrowser(s, 'POST', '/rest-api/phonebook/', { name: unique('pb') }, { ...forwarded, 'x-csrf-token': s.csrf, origin }, proxied.app);
    assert.equal((await write('https://dialer.example.com')).statusCode, 201);
    assert.equal((await write(ORIGIN)).statusCode, 403);
    // Not trusted: X-Forwarded-Proto is ignored, no Secure.
    assert.ok(!(await signIn(alice, t.app, forwarded)).setCookie.includes('Secure'));
  });

  test('GET /rest-api/session/ answers the same session and csrf token; 401 without a live one', async () => {
    const s = await signIn(admin);
    const res = await asBrowser(s, 'GET', '/rest-api/session/');
    assert.equal(res.statusCode, 200, res.body);
    assert.deepEqual(res.data, s.data);
    assert.equal(res.data.is_admin, true);
    const none = await call(t.app, undefined, 'GET', '/rest-api/session/');
    assert.equal(none.statusCode, 401, none.body);
    assert.deepEqual(none.data, { detail: 'Authentication credentials were not provided.' });
    const forged = await call(t.app, undefined, 'GET', '/rest-api/session/', undefined, { cookie: `dialer_session=${crypto.randomBytes(32).toString('base64url')}` });
    assert.equal(forged.statusCode, 401, forged.body);
    assert.equal(typeof forged.data.detail, 'string');
    assert.match(String(forged.headers['set-cookie']), /^dialer_session=; .*Max-Age=0/);
    // Basic credentials are not a session.
    assert.equal((await call(t.app, admin.auth, 'GET', '/rest-api/session/')).statusCode, 401);
  });

  test('DELETE signs out: it needs the CSRF token, clears the cookie, and the cookie is refused afterwards', async () => {
    const s = await signIn(alice);
    const refused = await asBrowser(s, 'DELETE', '/rest-api/session/', undefined, { origin: ORIGIN });
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/')).statusCode, 200, 'a refused sign-out ended the session');
    const out = await asBrowser(s, 'DELETE', '/rest-api/session/', undefined, csrf(s));
    assert.equal(out.statusCode, 204, out.body);
    assert.match(String(out.headers['set-cookie']), /^dialer_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/);
    for (const url of ['/rest-api/users/', '/rest-api/session/']) {
      const after = await asBrowser(s, 'GET', url);
      assert.equal(after.statusCode, 401, `${url}: ${after.body}`);
      assert.equal(typeof after.data.detail, 'string');
    }
    // A browser's 401 carries no Basic challenge (it would open the browser's login dialog); an API client's still does.
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/')).headers['www-authenticate'], undefined);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/users/', undefined, { 'sec-fetch-mode': 'cors' })).headers['www-authenticate'], undefined);
    assert.equal((await call(t.app, undefined, 'GET', '/rest-api/users/')).headers['www-authenticate'], 'Basic realm="api"');
  });

  test('signing out in one app instance is refused at once by another sharing the database', async () => {
    const other = await testApp({ database: t.database });
    const s = await signIn(bob);
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/', undefined, {}, other.app)).statusCode, 200);
    assert.equal((await asBrowser(s, 'DELETE', '/rest-api/session/', undefined, csrf(s))).statusCode, 204);
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/', undefined, {}, other.app)).statusCode, 401);
  });

  test('deactivating an account or changing its password (API or CLI) ends its sessions', async () => {
    const carol = await makeUser(t.database.db);
    const [one, two] = [await signIn(carol), await signIn(carol)];
    const patch = (body: Record<string, unknown>) => call(t.app, admin.auth, 'PATCH', `/rest-api/accounts/${carol.id}/`, body);
    assert.equal((await patch({ is_active: false })).statusCode, 202);
    for (const s of [one, two]) assert.equal((await asBrowser(s, 'GET', '/rest-api/users/')).statusCode, 401);
    assert.deepEqual(await sessionRows(carol), []);
    assert.equal((await patch({ is_active: true })).statusCode, 202);
    // The CLI's `user update --password` goes through the same rule.
    const three = await signIn(carol);
    await changeUser(t.database.db, carol.username, { password: 'another-password-1' });
    assert.equal((await asBrowser(three, 'GET', '/rest-api/users/')).statusCode, 401);
    // Another change (a name) signs nobody out.
    const four = await signIn({ ...carol, password: 'another-password-1' });
    assert.equal((await patch({ first_name: 'Carol' })).statusCode, 202);
    assert.equal((await asBrowser(four, 'GET', '/rest-api/users/')).statusCode, 200);
  });

  test('a session whose user was deactivated by hand (SQL, no account rule) is refused all the same', async () => {
    const dave = await makeUser(t.database.db);
    const s = await signIn(dave);
    await t.database.db.execute(sql`update users set is_active = false where id = ${dave.id}`);
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/')).statusCode, 401);
    const again = await signInRaw(t.app, { username: dave.username, password: dave.password });
    assert.equal(again.statusCode, 401, again.body);
  });

  test('sign-in errors: missing or blank fields 400 listing each, a wrong pair 401, a NUL 400, never a 500', async () => {
    const missing = await signInRaw(t.app, {});
    assert.equal(missing.statusCode, 400, missing.body);
    assert.deepEqual(missing.data, { username: ['This field is required.'], password: ['This field is required.'] });
    const blank = await signInRaw(t.app, { username: ' ', password: '' });
    assert.deepEqual(blank.data, { username: ['This field may not be blank.'], password: ['This field may not be blank.'] });
    for (const body of [{ username: alice.username, password: 'wrong' }, { username: unique('ghost'), password: 'x' }]) {
      const res = await signInRaw(t.app, body, {}, '10.9.0.1');
      assert.equal(res.statusCode, 401, res.body);
      assert.deepEqual(res.data, { detail: 'Invalid username/password.' });
      assert.equal(res.headers['set-cookie'], undefined);
    }
    for (const body of [{ username: `${alice.username}\u0000`, password: alice.password }, { username: alice.username, password: 'a\u0000b' }]) {
      const res = await signInRaw(t.app, body);
      assert.ok([400, 401].includes(res.statusCode), res.body);
    }
    for (const body of [[], 'text', { username: ['a'], password: { p: 1 } }]) {
      assert.equal((await signInRaw(t.app, body)).statusCode, 400);
    }
    const foreign = await signInRaw(t.app, { username: alice.username, password: alice.password }, { origin: 'https://evil.example' });
    assert.equal(foreign.statusCode, 403, 'another site may not sign this browser in');
  });

  test('Basic and Token requests need no CSRF token, and an Authorization header wins over the cookie', async () => {
    const key = await createToken(t.database.db, alice.username);
    for (const auth of [alice.auth, `Token ${key}`]) {
      const res = await call(t.app, auth, 'POST', '/rest-api/phonebook/', { name: unique('pb') }, { origin: 'https://evil.example' });
      assert.equal(res.statusCode, 201, res.body);
    }
    const s = await signIn(bob);
    const both = await call(t.app, alice.auth, 'POST', '/rest-api/phonebook/', { name: unique('pb') }, { cookie: s.cookie });
    assert.equal(both.statusCode, 201, both.body);
    assert.match(both.data.user, new RegExp(`/users/${alice.id}/$`), 'the header, not the cookie, names the caller');
  });

  test('the event stream accepts the cookie (EventSource sends no headers)', async () => {
    const s = await signIn(alice);
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const controller = new AbortController();
    const res = await fetch(`${address}/rest-api/events/`, { headers: { cookie: s.cookie }, signal: controller.signal });
    assert.equal(res.status, 200);
    assert.match(String(res.headers.get('content-type')), /text\/event-stream/);
    const first = await res.body!.getReader().read();
    assert.match(new TextDecoder().decode(first.value), /stream open/);
    controller.abort();
    const refused = await fetch(`${address}/rest-api/events/`, { headers: { cookie: 'dialer_session=nope' } });
    assert.equal(refused.status, 401);
  });
});

describe(`sessions with a clock and a throttle (${dbLabel})`, () => {
  let clock = Date.now();
  const small = { address: { threshold: 3 }, user: { threshold: 100 } };

  test('a session expires SESSION_HOURS after sign-in, however much it is used, and expired rows are pruned at the next sign-in', async () => {
    // A database of its own: moving the clock a day on prunes every session it holds.
    const timed = await testApp({ config: testConfig({ sessionHours: 2 }), auth: { now: () => clock } });
    const erin = await makeUser(timed.database.db);
    const s = await signIn(erin, timed.app);
    assert.match(s.setCookie, /Max-Age=7200(;|$)/);
    assert.equal(s.data.expires, new Date(clock + 7_200_000).toISOString().replace('Z', '000Z'));
    clock += 7_199_000;
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/', undefined, {}, timed.app)).statusCode, 200);
    clock += 1_000;
    assert.equal((await asBrowser(s, 'GET', '/rest-api/users/', undefined, {}, timed.app)).statusCode, 401);
    assert.equal((await asBrowser(s, 'GET', '/rest-api/session/', undefined, {}, timed.app)).statusCode, 401);
    await signIn(erin, timed.app);
    const rows = await queryRows<{ n: number }>(timed.database.db, sql`select count(*)::int as n from sessions where expires <= ${new Date(clock).toISOString()}`);
    assert.equal(rows[0].n, 0, 'the expired session was not pruned');
  });

  test('failed sign-ins count toward the login throttle shared with Basic; other users and their sessions are not refused', async () => {
    const throttled = await testApp({ database: t.database, auth: { throttle: small, now: () => clock } });
    const frank = await makeUser(t.database.db);
    const address = '10.77.0.1';
    const bobs = await signIn(bob, throttled.app, {}, address);
    for (let i = 0; i < 3; i++) {
      const res = await signInRaw(throttled.app, { username: frank.username, password: `wrong-${i}` }, {}, address);
      assert.equal(res.statusCode, 401, `failure ${i + 1}: ${res.body}`);
    }
    const right = await signInRaw(throttled.app, { username: frank.username, password: frank.password }, {}, address);
    assert.equal(right.statusCode, 429, right.body);
    assert.match(String(right.headers['retry-after']), /^\d+$/);
    const basicToo = await throttled.app.inject({ method: 'GET', url: '/rest-api/users/', remoteAddress: address, headers: { authorization: frank.auth } });
    assert.equal(basicToo.statusCode, 429, 'the Basic login of the same username and address is throttled too');
    const stillBob = await throttled.app.inject({ method: 'GET', url: '/rest-api/users/', remoteAddress: address, headers: { cookie: bobs.cookie } });
    assert.equal(stillBob.statusCode, 200, stillBob.body);
    assert.equal((await signInRaw(throttled.app, { username: alice.username, password: alice.password }, {}, address)).statusCode, 201);
  });
});
