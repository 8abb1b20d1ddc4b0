/**
 * Code blocks of README.md that tests run as written, so the README cannot drift from what works:
 * the worked example (`sh`, test/readme-example.test.ts), the commands of the Quick start and of
 * the API's sections (`sh`, test/readme-commands.test.ts) and the signature check an integrator
 * copies (`js`, test/webhooks.test.ts); and the server those run against, started as a user
 * starts it.
 */
import assert from 'node:assert/strict';
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { pathToFileURL } from 'node:url';
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

export interface UserServer {
  /** `http://127.0.0.1:<port>`, where it listens. */
  base: string;
  /** The password the first start printed for `admin`. */
  password: string;
  /** The environment it runs in (DATA_DIR, DATABASE_URL); a command line given it finds this server. */
  env: NodeJS.ProcessEnv;
  server: ChildProcessWithoutNullStreams;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code once it has exited. */
  exited: Promise<number | null>;
}

/**
 * `campaign-dialer serve` as a user starts it: a fresh DATA_DIR (or, under TEST_DATABASE_URL, a
 * fresh PostgreSQL database), any free port, the simulator, the log at `info`; killed and removed
 * after the file. Its first start's admin password is read where a user reads it: stderr.
 */
export async function startServerAsUser(): Promise<UserServer> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cd-readme-'));
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const database = onPostgres ? await freshPostgresDatabase() : undefined;
  if (database) after(database.drop);
  const { DATABASE_URL: _u, DIALER_ADMIN_PASSWORD: _p, ...inherited } = process.env;
  const env = { ...inherited, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'info', ...(database ? { DATABASE_URL: database.url } : {}) };

  const server = spawn(process.execPath, [path.resolve(import.meta.dirname, '..', 'bin/campaign-dialer.js'), 'serve'], { env });
  after(() => {
    if (server.exitCode === null) server.kill('SIGKILL');
  });
  let stdout = '';
  let stderr = '';
  server.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => server.on('close', resolve));
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not listen in 120 s:\n${stdout}\n${stderr}`)), 120_000);
    server.stdout.on('data', (d) => {
      stdout += d;
      const m = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  const found = /^ {2}First start: created user "admin" with password (\S+)$/m.exec(stderr);
  assert.ok(found, stderr);
  return { base, password: found[1], env, server, stdout: () => stdout, stderr: () => stderr, exited };
}
