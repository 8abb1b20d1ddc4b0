/** `campaign-dialer <kind> create`: gateways of every kind are made by admins, here or through the API. */
import type { Command } from 'commander';
import { cliOperator, jsonOption, oneLineError, print, withDatabase } from '../../cli-support.ts';
import { invalid } from '../../http/errors.ts';
import { parseBody } from '../../http/fields.ts';
import type { GatewayKind, GatewayTable } from './gateway-kind.ts';
import type { CommonGatewayFields } from './gateways.schema.ts';
import { createGateway } from './gateways.service.ts';

/** The options every kind's `create` has; `own` holds the kind's own ones. */
interface CreateOptions {
  name: string;
  driver?: string;
  settings?: string;
  description?: string;
  [own: string]: string | undefined;
}

/** What a kind's command says and adds (the texts of its help). */
export interface GatewayCommand {
  /** The command group's description. */
  description: string;
  /** The `create` command's description and its --name and --driver help. */
  create: string;
  name: string;
  driver: string;
  /** The kind's own options, added between --settings and --description: [flags, help]. */
  options?: [string, string][];
  /** The request fields the kind's own options set. */
  body?(opts: CreateOptions): Record<string, unknown>;
}

export function registerGatewayCreate<T extends GatewayTable>(program: Command, kind: GatewayKind<T, CommonGatewayFields>, command: GatewayCommand): void {
  const { names, fallback, validate } = kind.drivers;
  const create = program
    .command(kind.resource)
    .description(command.description)
    .command('create')
    .description(command.create)
    .requiredOption('--name <name>', command.name)
    .option('--driver <driver>', command.driver, fallback)
    .option('--settings <json>', "the driver's settings, a JSON object");
  for (const [flags, help] of command.options ?? []) create.option(flags, help);
  create.option('--description <text>', 'description').action(async (opts: CreateOptions) => {
    const driver = opts.driver ?? fallback;
    const body = { name: opts.name, driver, settings: jsonOption('--settings', opts.settings), ...command.body?.(opts), description: opts.description };
    // Settings are checked before the database is opened, so a typo fails fast.
    const problems = validate(driver, body.settings ?? {});
    if (problems.length) oneLineError(kind.words.label, invalid({ [names.includes(driver) ? 'settings' : 'driver']: problems }));
    const row = await withDatabase(async ({ db }) => {
      try {
        return await createGateway(kind, db, await parseBody(kind.fields, body, { db, user: cliOperator }));
      } catch (err) {
        return oneLineError(kind.words.label, err);
      }
    });
    print(String(row.id));
  });
}
