/**
 * What the gateway kinds' tests share: an API with an admin and a user and a way to create a
 * gateway of the kind through it; and the `campaign-dialer <kind> create` command run as a real
 * process against its own database (a data directory, or a fresh PostgreSQL database under
 * TEST_DATABASE_URL), removed after the file's tests.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { type Db, openDatabase } from '../../db/database.ts';
import { makeUser, unique } from '../../../test/factories.ts';
import { call, freshPostgresDatabase, idOf, onPostgres, testApp } from '../../../test/helpers.ts';
import { withoutUsingLine } from '../../../test/cli-process.ts';

/** A test API with an admin and a user (alice); `postGateway` has the admin POST one of the kind. */
export async function gatewayTestApp(kind: string, namePrefix: string) {
  const t = await testApp();
  const { db } = t.database;
  const admin = await makeUser(db, { admin: true });
  const alice = await makeUser(db);

  async function postGateway(body: Record<string, unknown> = {}) {
    const res = await call(t.app, admin.auth, 'POST', `/rest-api/${kind}/`, { name: unique(namePrefix), ...body });
    assert.equal(res.statusCode, 201, res.body);
    return { id: idOf(res.data.url), url: res.data.url as string, data: res.data };
  }

  return { t, db, admin, alice, postGateway };
}

export interface GatewayCli<Row> {
  /** Runs `campaign-dialer <kind> create <args>` to its end. */
  cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Reads a gateway from the CLI's database (PGlite allows one process at a time: only between runs). */
  gatewayRow(id: number): Promise<Row | undefined>;
}

export async function gatewayCli<Row>(kind: string, find: (db: Db, id: number) => Promise<Row | undefined>): Promise<GatewayCli<Row>> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `${kind}-cli-`));
  const postgres = onPostgres ? await freshPostgresDatabase() : undefined;
  const env = {
    ...process.env,
    LOG_LEVEL: 'silent',
    ...(postgres ? { DATABASE_URL: postgres.url } : { DATA_DIR: path.join(dir, 'data'), DATABASE_URL: '' }),
  };
  after(async () => {
    await postgres?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  return {
    cli: (...args) =>
      new Promise((resolve) => {
        execFile(process.execPath, ['bin/campaign-dialer.js', kind, 'create', ...args], { env }, (err, stdout, stderr) =>
          resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr: withoutUsingLine(stderr) }),
        );
      }),
    async gatewayRow(id) {
      const database = await openDatabase(postgres ? { url: postgres.url } : { dataDir: path.join(dir, 'data') });
      try {
        return await find(database.db, id);
      } finally {
        await database.close();
      }
    },
  };
}
