/** `campaign-dialer gateway create`: gateways are made by admins, here or through the API. */
import type { Command } from 'commander';
import { cliOperator, jsonOption, oneLineError, print, withDatabase } from '../../cli-support.ts';
import { DEFAULT_DRIVER, driverNames, validateDriverSettings } from '../../drivers/voice/index.ts';
import { invalid } from '../../http/errors.ts';
import { parseBody } from '../../http/fields.ts';
import { gatewayFields } from './gateway.schema.ts';
import { createGateway } from './gateway.service.ts';

interface CreateOptions {
  name: string;
  driver?: string;
  settings?: string;
  maximumCall?: string;
  gateways?: string;
  description?: string;
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
        settings: jsonOption('--settings', opts.settings),
        maximum_call: opts.maximumCall,
        gateways: opts.gateways,
        description: opts.description,
      };
      // Settings are checked before the database is opened, so a typo fails fast.
      const problems = validateDriverSettings(opts.driver ?? DEFAULT_DRIVER, body.settings ?? {});
      if (problems.length) oneLineError('gateway', invalid({ [driverNames.includes(opts.driver ?? DEFAULT_DRIVER) ? 'settings' : 'driver']: problems }));
      const row = await withDatabase(async ({ db }) => {
        try {
          return await createGateway(db, await parseBody(gatewayFields, body, { db, user: cliOperator }));
        } catch (err) {
          return oneLineError('gateway', err);
        }
      });
      print(String(row.id));
    });
}
