/** `campaign-dialer gateway create`: gateways are made by admins, here or through the API. */
import type { Command } from 'commander';
import { CliError, withDatabase } from '../../cli-support.ts';
import { DEFAULT_DRIVER, driverNames, validateDriverSettings } from '../../engine/drivers/index.ts';
import { AppError, invalid } from '../../http/errors.ts';
import { parseBody } from '../../http/fields.ts';
import { gatewayFields } from './gateway.schema.ts';
import { createGateway } from './gateway.service.ts';

/** The CLI acts as an admin (it has the database). */
const operator = { id: 0, username: 'cli', is_admin: true };

interface CreateOptions {
  name: string;
  driver?: string;
  settings?: string;
  maximumCall?: string;
  gateways?: string;
  description?: string;
}

function settingsOf(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new CliError(`--settings is not valid JSON: ${(err as Error).message}`);
  }
}

/** A 400 of the API as one line: `name: …; settings: …`. */
function oneLine(err: unknown): never {
  if (err instanceof AppError && err.statusCode === 400) {
    const fields = Object.entries(err.body).map(([field, problems]) => `${field}: ${([] as unknown[]).concat(problems).join(' ')}`);
    throw new CliError(`invalid gateway: ${fields.join('; ')}`);
  }
  throw err;
}

export function registerGatewayCommands(program: Command): void {
  program
    .command('gateway')
    .description('telephony gateways (the carriers campaigns dial through)')
    .command('create')
    .description('create a gateway and print its id')
    .requiredOption('--name <name>', 'unique gateway name')
    .option('--driver <driver>', 'telephony driver: simulator or freeswitch', 'simulator')
    .option('--settings <json>', "the driver's settings, a JSON object")
    .option('--maximum-call <n>', 'calls at once through this gateway (default: no cap)')
    .option('--gateways <prefix>', 'dial-string prefix, e.g. sofia/gateway/carrier/')
    .option('--description <text>', 'description')
    .action(async (opts: CreateOptions) => {
      const body = {
        name: opts.name,
        driver: opts.driver,
        settings: settingsOf(opts.settings),
        maximum_call: opts.maximumCall,
        gateways: opts.gateways,
        description: opts.description,
      };
      // Settings are checked before the database is opened, so a typo fails fast.
      const problems = validateDriverSettings(opts.driver ?? DEFAULT_DRIVER, body.settings ?? {});
      if (problems.length) oneLine(invalid({ [driverNames.includes(opts.driver ?? DEFAULT_DRIVER) ? 'settings' : 'driver']: problems }));
      const row = await withDatabase(async ({ db }) => {
        try {
          return await createGateway(db, await parseBody(gatewayFields, body, { db, user: operator }));
        } catch (err) {
          return oneLine(err);
        }
      });
      console.log(row.id);
    });
}
