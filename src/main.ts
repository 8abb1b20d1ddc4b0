/**
 * Process entry for `campaign-dialer serve`: open the database (retrying while it is down),
 * apply migrations, create the first admin, then start the API and/or the engine by role.
 * SIGTERM/SIGINT stop both gracefully: the API stops accepting requests and finishes those in
 * flight, the engine stops claiming work and records the calls in flight, then the database
 * closes (and the embedded database's lock file is released).
 *
 * The API (app.ts: Fastify, swagger and every resource) and the engine are imported only by the
 * roles that run them, so an engine process never loads nor compiles the API (issue 5: engine RSS).
 */
import type { FastifyInstance } from 'fastify';
import v8 from 'node:v8';
import pino from 'pino';
import type { Config } from './config.ts';
import { type Database, openDatabase } from './db/database.ts';
import { migrate } from './db/migrate.ts';
import { ensureFirstAdmin } from './resources/users/users.service.ts';
import type { Engine } from './engine/engine.ts';
import type { GatewayDrivers, SmsGatewayDrivers } from './engine/gateway-drivers.ts';
import type { SmsEventsQueue } from './campaign/sms-events.ts';
import { WebhookDispatcher } from './webhooks/dispatcher.ts';

export const Roles = ['all', 'api', 'engine'] as const;
export type Role = (typeof Roles)[number];

export interface Running {
  database: Database;
  app?: FastifyInstance;
  /** The address the API listens on, when this process serves it. */
  address?: string;
  stop(): Promise<void>;
  /** The step of the stop under way ('' before it): 'the engine (its calls in flight recorded)', say. */
  stopStep(): string;
}

/** Opens the database the configuration names and brings its schema up to date. */
export async function openAndMigrate(config: Config, log: { info(m: string): void; warn(m: string): void }): Promise<Database> {
  const database = await openDatabase({
    url: config.databaseUrl,
    dataDir: config.dataDir,
    retryForMs: config.databaseRetrySeconds * 1000,
    log,
  });
  try {
    const applied = await migrate(database);
    if (applied.length) log.info(`applied migrations: ${applied.join(', ')}`);
  } catch (err) {
    await database.close();
    throw err;
  }
  return database;
}

/** The engine's modules, imported by the roles that run it. */
async function importEngine() {
  const [{ systemClock }, { Engine }, { gatewayDrivers, smsGatewayDrivers }, { smsEvents }] = await Promise.all([
    import('./clock.ts'),
    import('./engine/engine.ts'),
    import('./engine/gateway-drivers.ts'),
    import('./campaign/sms-events.ts'),
  ]);
  return { systemClock, Engine, gatewayDrivers, smsGatewayDrivers, smsEvents };
}

/**
 * Log lines for people on a terminal (pino-pretty, loaded only then: an engine process run by a
 * service manager does not pay for it), JSON lines otherwise. The API's logger writes to the
 * same stream.
 */
async function logOptions(config: Config): Promise<{ level: string; stream?: NodeJS.WritableStream }> {
  if (!process.stdout.isTTY) return { level: config.logLevel };
  const { default: pretty } = await import('pino-pretty');
  return { level: config.logLevel, stream: pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname,component' }) };
}

/**
 * The generated password of the first admin, as a plain block on stderr: easy to spot on a
 * terminal and in a service's journal, and never inside a JSON log line.
 */
function printFirstPassword(password: string): void {
  const rule = '='.repeat(72);
  process.stderr.write(
    `\n${rule}\n  First start: created user "admin" with password ${password}\n` +
      `  It is shown only this once. Change it with: campaign-dialer user update admin --password NEW\n${rule}\n\n`,
  );
}

/**
 * How much V8's old generation may grow past what the last full collection kept before it starts
 * another (its --heap-growing-percent), in a process that serves the API and so delivers events.
 * Left to itself, V8 takes a factor from how fast it collects against how fast objects are
 * promoted, and for a heap it collects quickly that factor falls to its floor, 1.1: a server
 * delivering a 100,000-call campaign (200,000 events, to a webhook and a stream) promoted ~60 MB
 * and ran ~30 full collections of its ~40 MB heap, each ~55 ms of CPU marking it again. At 100 %
 * it ran 9, and its CPU for the campaign fell from 7.4–8.9 to 5.7–5.9 s (issue 14, in the
 * README). The price: the old generation may reach twice what it keeps live (bench:api's peak
 * RSS 302 → 316 MB on PGlite, 196 → 184 MB on PostgreSQL: within the noise of its targets). Set
 * at start-up, as V8 reads it each time it sets a limit; the engine alone is left as it was.
 */
const OLD_GENERATION_GROWTH_PERCENT = 100;

export async function serve(config: Config, role: Role): Promise<Running> {
  const logging = await logOptions(config);
  const log = logging.stream ? pino({ level: logging.level }, logging.stream) : pino({ level: logging.level });
  const where = config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`;
  log.info(`starting (role ${role}) on ${where}`);
  // Imported before the database opens, so a module that fails to load leaves nothing open.
  const [engineModules, apiModule] = await Promise.all([
    role === 'all' || role === 'engine' ? importEngine() : undefined,
    role === 'all' || role === 'api' ? import('./app.ts') : undefined,
  ]);
  if (apiModule) v8.setFlagsFromString(`--heap-growing-percent=${OLD_GENERATION_GROWTH_PERCENT}`);
  const database = await openAndMigrate(config, { info: (m) => log.info(m), warn: (m) => log.warn(m) });

  const admin = await ensureFirstAdmin(database.db, config.adminPassword);
  if (admin.generated) {
    printFirstPassword(admin.generated);
    log.warn('created user "admin" with a generated password, printed on stderr (not in the log)');
  } else if (admin.created) {
    log.info('created user "admin" with DIALER_ADMIN_PASSWORD');
  }

  let engine: Engine | undefined;
  let drivers: GatewayDrivers | undefined;
  let smsDrivers: SmsGatewayDrivers | undefined;
  let events: SmsEventsQueue | undefined;
  if (engineModules) {
    const { systemClock, Engine, gatewayDrivers, smsGatewayDrivers, smsEvents } = engineModules;
    drivers = gatewayDrivers({ clock: systemClock, dataDir: config.dataDir });
    const engineLog = log.child({ component: 'engine' });
    const logTo = { info: (m: string) => engineLog.info(m), warn: (m: string) => engineLog.warn(m), error: (m: string) => engineLog.error(m) };
    events = smsEvents(database.db, logTo);
    smsDrivers = smsGatewayDrivers({ clock: systemClock, events });
    engine = new Engine({
      db: database.db,
      log: logTo,
      clock: systemClock,
      drivers: (gateway) => (drivers as GatewayDrivers).driverOf(gateway),
      smsDrivers: (gateway) => (smsDrivers as SmsGatewayDrivers).driverOf(gateway),
      config,
      databaseKind: database.kind,
      staleMs: config.engineStaleSeconds * 1000,
    });
    await engine.recover();
    engine.start();
  }

  // Every process that serves the API sends webhook deliveries; the database shares them out
  // (SKIP LOCKED). An engine-only process keeps its CPU for dialing (with deliveries beside it,
  // bench:events measured the engine a third slower), and there is always an API process.
  const webhookLog = log.child({ component: 'webhooks' });
  const webhooks = !apiModule ? undefined : new WebhookDispatcher({
    database,
    publicUrl: config.publicUrl,
    allowPrivate: config.webhookAllowPrivate,
    retentionDays: config.eventRetentionDays,
    log: { warn: (m: string) => webhookLog.warn(m) },
  });
  await webhooks?.start();

  // Before the API listens: once "listening" is logged, CLI commands are run here too.
  const control = await listenForCommands(config, database, log);

  let app: FastifyInstance | undefined;
  let address: string | undefined;
  if (apiModule) {
    app = await apiModule.buildApp({ database, config, engine, logger: logging });
    address = await app.listen({ port: config.port, host: config.host });
  }

  // The stop, step by step; `stopStep` names the step under way, for a stop that never ends
  // (serveUntilSignalled says which).
  const steps: [string, () => Promise<unknown> | undefined][] = [
    ['the API', () => app?.close()],
    ['the CLI socket', () => control?.close()],
    ['the webhook deliveries', () => webhooks?.stop()],
    // The engine records its calls in flight before the database closes.
    ['the engine (its calls in flight recorded)', () => engine?.stop()],
    ['the telephony drivers', () => drivers?.close()],
    ['the SMS drivers', () => smsDrivers?.close()],
    // Delivery reports still queued are written (the drivers are closed: no more arrive).
    ['the SMS delivery reports', () => events?.close()],
    ['the database', () => database.close()],
  ];
  let stopStep = '';
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      log.info('shutting down');
      for (const [name, step] of steps) {
        stopStep = name;
        await step();
      }
      log.info('stopped');
    })());
  return { database, app, address, stop, stopStep: () => stopStep };
}

/**
 * The embedded database is this process's alone: CLI commands started meanwhile are run here,
 * handed over through DATA_DIR/control.sock (control.ts). Not needed on PostgreSQL.
 */
async function listenForCommands(config: Config, database: Database, log: pino.Logger) {
  if (database.kind !== 'pglite') return undefined;
  const control = await import('./control.ts');
  try {
    return await control.listenForCommands(config, database, { info: (m) => log.info(m) });
  } catch (err) {
    log.warn(`CLI commands cannot run while this server runs (no control socket): ${(err as Error).message}`);
    return undefined;
  }
}

/** Runs `serve` until SIGTERM or SIGINT, then stops gracefully. */
export async function serveUntilSignalled(config: Config, role: Role): Promise<void> {
  const running = await serve(config, role);
  await new Promise<void>((resolve) => {
    const onSignal = (signal: string) => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      void signal;
      resolve();
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
  // A step of the stop that waits for something that can no longer come (nothing left to run)
  // would end the process with code 13 and no word: it is named.
  let stopped = false;
  process.once('beforeExit', () => {
    if (!stopped) process.stderr.write(`campaign-dialer: the stop never finished: stopping ${running.stopStep()}, it waited for nothing left to run\n`);
  });
  await running.stop();
  stopped = true;
  // Stopped: every call recorded, every queue written, the database closed. The process ends
  // when nothing is left open; should a handle outlive the stop (a socket kept alive, a timer),
  // it is named and the process exits anyway, instead of running on with nothing to do (seen
  // once in the browser tests: a server stopped cleanly, then alive half an hour later).
  setTimeout(() => {
    process.stderr.write(`campaign-dialer: still open ${EXIT_GRACE_MS} ms after the stop (${process.getActiveResourcesInfo().join(', ')}): exiting\n`);
    process.exit(0);
  }, EXIT_GRACE_MS).unref();
}

/** How long a stopped server may take to end by itself before it exits (serveUntilSignalled). */
const EXIT_GRACE_MS = 2000;
