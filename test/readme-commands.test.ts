/**
 * The README's commands, run as a reader runs them: each `sh` block of the Quick start and of the
 * API's sections is taken from README.md and run with bash, one command after another in one
 * shell, against a server started as a user starts it. Only what a reader must fill in is
 * filled in: `PASSWORD` (the first start's), the address (`http://127.0.0.1:8000`, any free port
 * here), `<key>` (the token the block's command before printed) and `…` (a secret the reader
 * chooses). Each command's output is then held to what the README says of it.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { basic, onPostgres } from './helpers.ts';
import { readmeBlock, startServerAsUser } from './readme.ts';
import { request } from './cli-process.ts';

const root = path.resolve(import.meta.dirname, '..');
const server = await startServerAsUser();
const { base, password, env } = server;
const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-cwd-'));
after(() => fs.rmSync(workDir, { recursive: true, force: true }));
const admin = basic('admin', password);
/** A GET as the admin, its JSON body. */
const read = async (url: string) => (await request(server, 'GET', url, admin)).body;

/**
 * A block's commands, one per entry: a command runs on while a quote is open or a line ends with
 * `\`; lines that are only a comment are left out.
 */
function commandsOf(block: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (const line of block.split('\n')) {
    if (!current && /^\s*(#|$)/.test(line)) continue;
    current += (current ? '\n' : '') + line;
    for (let i = 0; i < line.length; i++) {
      const c = line[i];
      if (quote) {
        if (c === quote) quote = null;
        else if (c === '\\' && quote === '"') i++;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === '\\') i++;
      else if (c === '#' && /\s/.test(line[i - 1] ?? ' ')) break; // a comment to the line's end
    }
    if (!quote && !line.endsWith('\\')) {
      commands.push(current);
      current = '';
    }
  }
  assert.equal(current, '', `a command left open at the block's end: ${current}`);
  return commands;
}

/** A command with the reader's blanks filled in: the address, `PASSWORD`, and `fill`'s own. */
function fillIn(command: string, fill: Record<string, string> = {}): string {
  let text = command.replaceAll('http://127.0.0.1:8000', base).replaceAll('http://localhost:8000', base).replaceAll('PASSWORD', password);
  for (const [blank, value] of Object.entries(fill)) text = text.replaceAll(blank, value);
  return text;
}

const SEPARATOR = '\n\u001e\n';

/**
 * Runs a block's commands in one bash (so a variable one sets is there for the next), with the
 * reader's blanks filled in; returns each command's stdout. It runs in a scratch directory (a
 * cookie jar lands there), or where the reader stands for `npx campaign-dialer`: the project's
 * directory, from which the command line finds the running server through its DATA_DIR, as the
 * README's "While a server runs" says. A command that fails stops the block.
 */
function runBlock(block: string, fill: Record<string, string> = {}, cwd = workDir): string[] & { stderr: string } {
  const filled = commandsOf(block).map((command) => fillIn(command, fill));
  const script = filled.join(`\nprintf '${SEPARATOR.replaceAll('\n', '\\n').replace('\u001e', '\\036')}'\n`);
  const result = spawnSync('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
  assert.equal(result.status, 0, `${script}\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`);
  const outputs = result.stdout.split(SEPARATOR);
  assert.equal(outputs.length, filled.length, result.stdout);
  return Object.assign(outputs, { stderr: result.stderr });
}

const json = (text: string) => JSON.parse(text) as Record<string, unknown>;

test("the Quick start's commands: the API root, a user and a token by the command line, one by the API", async () => {
  const block = readmeBlock('Then, in another terminal while the server runs', 'sh');
  const commands = commandsOf(block);
  assert.equal(commands.length, 6, commands.join('\n---\n'));
  // Up to the token the reader copies, then the rest with it in place of `<key>`.
  const first = runBlock(commands.slice(0, 3).join('\n'), {}, root);
  const rootLinks = json(first[0]);
  assert.equal(rootLinks.campaigns, `${base}/rest-api/campaigns/`, first[0]);
  assert.equal(rootLinks.phonebook, `${base}/rest-api/phonebook/`, first[0]);
  // Handed to the server, and says so (README, "Command line"): on PostgreSQL it connects beside it.
  const which = onPostgres ? /^campaign-dialer: using PostgreSQL at 127\.0\.0\.1:5432\/\w+$/m : new RegExp(`^campaign-dialer: using the embedded database in ${env.DATA_DIR} \\(server pid ${server.child.pid}\\)$`, 'm');
  assert.match(first.stderr, which, first.stderr);
  const key = first[2].trim().split('\n').at(-1) ?? '';
  assert.match(key, /^\S{20,}$/, `token create printed: ${first[2]}`);

  const rest = runBlock(commands.slice(3).join('\n'), { '<key>': key }, root);
  const users = json(rest[0]) as { count: number; results: { username: string }[] };
  assert.deepEqual(users.results.map((u) => u.username), ['alice'], `alice's token sees alice alone: ${rest[0]}`);
  assert.equal(json(rest[1]).username, 'bob', rest[1]);
  const bobsKey = json(rest[2]).key;
  assert.equal(typeof bobsKey, 'string', rest[2]);

  // What the commands made, read back through the API.
  const accounts = (await read('/rest-api/accounts/')) as { results: { id: number; username: string; balance: string; call_rate: string }[] };
  const alice = accounts.results.find((a) => a.username === 'alice');
  assert.ok(alice, JSON.stringify(accounts));
  assert.equal(alice.id, 2, 'alice is account 2, as the contact caps example below expects');
  assert.equal(Number(alice.balance), 100, JSON.stringify(alice));
  assert.equal(Number(alice.call_rate), 0.02, JSON.stringify(alice));
  const asBob = await request(server, 'GET', '/rest-api/users/', `Token ${bobsKey as string}`);
  assert.equal(asBob.status, 200, "bob's token works");
});

/** The block's comment lines (`# ` taken off): where the README says what a command answers. */
const commentsOf = (block: string) => block.split('\n').filter((l) => /^#( |$)/.test(l)).map((l) => l.slice(2));

test('the contact caps example sets what its comment says a GET reads back', async () => {
  const block = readmeBlock('and no account, not even an admin', 'sh');
  const [patched] = runBlock(block);
  assert.equal(patched, '', "an update answers 202 with an empty body (the API's rule for PATCH)");
  // "# GET …/accounts/2/ → "contact_caps": {…}, "calling_hours": {…}", as the JSON it quotes.
  const said = commentsOf(block).join(' ');
  const [, accountId, fields] = /^GET …\/accounts\/(\d+)\/ → (.*)$/.exec(said) ?? [];
  assert.ok(fields, said);
  const expected = JSON.parse(`{${fields}}`) as Record<string, unknown>;
  const account = (await read(`/rest-api/accounts/${accountId}/`)) as Record<string, unknown>;
  assert.deepEqual(Object.keys(expected).sort(), ['calling_hours', 'contact_caps']);
  for (const [field, value] of Object.entries(expected)) assert.deepEqual(account[field], value, field);
});

test('the idempotency example: the second POST replays the first, nothing more is created', async () => {
  const [key, created, replayed] = runBlock(readmeBlock('### Retrying a POST safely', 'sh'));
  assert.equal(key, '', 'KEY=… prints nothing');
  assert.equal(json(created).name, 'customers', created);
  assert.equal(replayed, created, 'the same body');
  const phonebooks = (await read('/rest-api/phonebook/')) as { results: { name: string }[] };
  assert.equal(phonebooks.results.filter((p) => p.name === 'customers').length, 1, JSON.stringify(phonebooks));
});

test('the session example answers the status, body and cookie its comments show', () => {
  const block = readmeBlock('### Signing in from a browser', 'sh');
  const [answer] = runBlock(block);
  const [head, body] = answer.split(/\r\n\r\n/);
  // "# 201 {…}" and "# Set-Cookie: …": `…` stands for what differs each time.
  const [statusLine, cookieLine] = commentsOf(block);
  const [, status, shownBody] = /^(\d{3}) (\{.*\})$/.exec(statusLine) ?? [];
  assert.ok(shownBody, statusLine);
  assert.match(head, new RegExp(`^HTTP/1\\.1 ${status} `), answer);
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const cookie = new RegExp(`^${escape(cookieLine).replaceAll('…', '[^;\\s]+')}\r?$`, 'im');
  assert.match(head, cookie, head);
  const shown = json(shownBody);
  const session = json(body);
  assert.deepEqual(Object.keys(session).sort(), Object.keys(shown).sort(), body);
  for (const [field, value] of Object.entries(shown)) {
    if (value === '…') assert.equal(typeof session[field], 'string', field);
    else if (field === 'expires') assert.equal(String(session[field]).replace(/\d/g, '0'), String(value).replace(/\d/g, '0'), 'the timestamp shown');
    else assert.equal(session[field], value, field);
  }
  assert.match(fs.readFileSync(path.join(workDir, 'jar'), 'utf8'), /\tdialer_session\t/, 'curl kept the cookie in ./jar');
});

test("the events examples: the live stream stays open, the poller's page is {next, results} with the log in it", async () => {
  // Something in the log first: an import into the idempotency example's phonebook.
  const phonebooks = (await read('/rest-api/phonebook/')) as { results: { id: number; name: string }[] };
  const customers = phonebooks.results.find((p) => p.name === 'customers');
  assert.ok(customers, JSON.stringify(phonebooks));
  const form = new FormData();
  form.append('file', new Blob(['contact,full_name\n+442071234567,Ada\n+442071234568,Bob\n'], { type: 'text/csv' }), 'leads.csv');
  const imported = await fetch(`${base}/rest-api/phonebook/${customers.id}/import/`, { method: 'POST', headers: { authorization: admin }, body: form });
  assert.equal(imported.status, 201, await imported.text());

  const [stream, page] = commandsOf(readmeBlock('### Events and webhooks', 'sh'));
  assert.match(stream, /^curl -N /, stream);
  // The stream never ends by itself: it is still open after 3 s (timeout's 124), and said nothing
  // of an error meanwhile (curl prints a refused request's body and exits 0).
  const streamed = spawnSync('bash', ['-c', `timeout 3 ${fillIn(stream)}`], { encoding: 'utf8' });
  assert.equal(streamed.status, 124, `${streamed.stdout}\n${streamed.stderr}`);
  assert.doesNotMatch(streamed.stdout, /detail/, streamed.stdout);

  const [polled] = runBlock(page);
  const answer = json(polled) as { next: string | null; results: { id: string; type: string; data: Record<string, unknown> }[] };
  assert.deepEqual(Object.keys(answer).sort(), ['next', 'results'], polled);
  assert.equal(answer.next, null, 'one page holds it all');
  const finished = answer.results.filter((e) => e.type === 'import.finished');
  assert.equal(finished.length, 1, polled);
  assert.equal(finished[0].data.phonebook, `${base}/rest-api/phonebook/${customers.id}/`, polled);
  assert.equal(finished[0].data.imported, 2, polled);
});

test("the SIP trunk example creates the gateway it describes, the password read back masked", async () => {
  const [created] = runBlock(readmeBlock('**A worked example.** A typical trunk', 'sh'), { 'admin:…': `admin:${password}`, '"password": "…"': '"password": "trunk-secret"' });
  const gateway = json(created) as { id: number; name: string; driver: string; settings: Record<string, unknown> };
  assert.equal(gateway.name, 'carrier', created);
  assert.equal(gateway.driver, 'sip', created);
  assert.equal(gateway.settings.password, '********', created);
  assert.equal(gateway.settings.cps, 5, created);
  const stored = (await read(`/rest-api/gateway/${gateway.id}/`)) as { settings: Record<string, unknown> };
  assert.equal(stored.settings.password, '********', 'write-only');
});
