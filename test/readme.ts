/**
 * Code blocks of README.md that tests run as written, so the README cannot drift from what works:
 * the worked example (`sh`, test/readme-example.test.ts), the commands of the Quick start and of
 * the API's sections (`sh`, test/readme-commands.test.ts) and the signature check an integrator
 * copies (`js`, test/webhooks.test.ts); and the server those run against, started as a user
 * starts it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { pathToFileURL } from 'node:url';
import { childEnv, type Server, startServe } from './cli-process.ts';
import { freshPostgresDatabase, onPostgres } from './helpers.ts';

const README = path.resolve(import.meta.dirname, '..', 'README.md');

/** The first fenced `lang` block after the text `marker` in README.md. */
export function readmeBlock(marker: string, lang: 'sh' | 'js'): string {
  const readme = fs.readFileSync(README, 'utf8');
  const at = readme.indexOf(marker);
  assert.ok(at >= 0, `README.md has no "${marker}"`);
  const m = new RegExp('```' + lang + '\\n([\\s\\S]*?)\\n```').exec(readme.slice(at));
  assert.ok(m, `no \`\`\`${lang} block after "${marker}" in README.md`);
  return m[1];
}

export type SignatureCheck = (secret: string, rawBody: string, header: string, toleranceSeconds?: number) => boolean;

/** The README's "Verifying a signature (Node)" function `verified`, loaded as the module it is written as. */
export async function readmeSignatureCheck(): Promise<SignatureCheck> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  const file = path.join(dir, 'verify.mjs');
  try {
    fs.writeFileSync(file, `${readmeBlock('Verifying a signature (Node', 'js')}\nexport { verified };\n`);
    const loaded = (await import(pathToFileURL(file).href)) as { verified?: SignatureCheck };
    assert.equal(typeof loaded.verified, 'function', "the README's signature block defines no function `verified`");
    return loaded.verified as SignatureCheck;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * `campaign-dialer serve` as a user starts it (cli-process.ts startServe): a fresh DATA_DIR (or,
 * under TEST_DATABASE_URL, a fresh PostgreSQL database), no admin password given, any free port,
 * the simulator; killed and removed after the file. Its first start's admin password is read
 * where a user reads it: stderr. `env` is what a command line needs to find this server.
 */
export async function startServerAsUser(): Promise<Server & { password: string; env: NodeJS.ProcessEnv }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const database = onPostgres ? await freshPostgresDatabase() : undefined;
  if (database) after(database.drop);
  const env = { DATA_DIR: dataDir, ...(database ? { DATABASE_URL: database.url } : {}) };
  const server = await startServe(env);
  const found = /^ {2}First start: created user "admin" with password (\S+)$/m.exec(server.stderr());
  assert.ok(found, server.stderr());
  return { ...server, password: found[1], env: childEnv(env) };
}
