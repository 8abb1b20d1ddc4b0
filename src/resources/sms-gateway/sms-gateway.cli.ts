/** `campaign-dialer sms-gateway create`: SMS gateways are made by admins, here or through the API. */
import type { Command } from 'commander';
import { cliOperator, jsonOption, oneLineError, print, withDatabase } from '../../cli-support.ts';
import { DEFAULT_SMS_DRIVER, smsDriverNames, validateSmsDriverSettings } from '../../drivers/sms/index.ts';
import { invalid } from '../../http/errors.ts';
import { parseBody } from '../../http/fields.ts';
import { smsGatewayFields } from './sms-gateway.schema.ts';
import { createSmsGateway } from './sms-gateway.service.ts';

interface CreateOptions {
  name: string;
  driver?: string;
  settings?: string;
  description?: string;
}

export function registerSmsGatewayCommands(program: Command): void {
  program
    .command('sms-gateway')
    .description('SMS gateways (what SMS campaigns send through)')
    .command('create')
    .description('create an SMS gateway and print its id')
    .requiredOption('--name <name>', 'unique SMS gateway name')
    .option('--driver <driver>', `SMS driver: ${smsDriverNames.join(', ')}`, DEFAULT_SMS_DRIVER)
    .option('--settings <json>', "the driver's settings, a JSON object")
    .option('--description <text>', 'description')
    .action(async (opts: CreateOptions) => {
      const driver = opts.driver ?? DEFAULT_SMS_DRIVER;
      const body = { name: opts.name, driver, settings: jsonOption('--settings', opts.settings), description: opts.description };
      // Settings are checked before the database is opened, so a typo fails fast.
      const problems = validateSmsDriverSettings(driver, body.settings ?? {});
      if (problems.length) oneLineError('sms gateway', invalid({ [smsDriverNames.includes(driver) ? 'settings' : 'driver']: problems }));
      const row = await withDatabase(async ({ db }) => {
        try {
          return await createSmsGateway(db, await parseBody(smsGatewayFields, body, { db, user: cliOperator }));
        } catch (err) {
          return oneLineError('sms gateway', err);
        }
      });
      print(String(row.id));
    });
}
