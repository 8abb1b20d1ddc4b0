/**
 * The `campaign-dialer` command. Every failure is one clear line on stderr and a non-zero exit.
 * Commands of a resource (queue, import, gateway …) live beside it as `<name>.cli.ts`. While a
 * server holds the embedded database, a command is handed to it and run there (control.ts).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { eq } from 'drizzle-orm';
import { CliError, type ForwardedRun, print, runForwarded, withDatabase } from './cli-support.ts';
import { forwardToServer } from './control.ts';
import { ConfigError, loadConfig } from './config.ts';
import { apiTokens } from './db/schema.ts';
import { AccountError, changeUser, createToken, createUser, type UserInput } from './resources/users/users.service.ts';
import { Roles, type Role, serveUntilSignalled } from './main.ts';
import { findUserByUsername } from './users/users.repository.ts';
import { deleteTokensByPrefix, listTokens } from './resources/tokens/tokens.repository.ts';
import { decimal } from './http/fields.ts';

function decimalOption(value: string): string {
  try {
    return decimal({ places: 5 }).parse(value, undefined as never) as string;
  } catch {
    throw new InvalidArgumentError('expected a number with at most 5 decimals');
  }
}

function userOptions(command: Command): Command {
  return command
    .option('--admin', 'make the user an admin (sees and changes every record)')
    .option('--no-admin', 'make the user a regular user')
    .option('--email <email>', 'e-mail address')
    .option('--first-name <name>', 'first name')
    .option('--last-name <name>', 'last name')
    .option('--balance <amount>', 'account balance', decimalOption)
    .option('--call-rate <rate>', 'price of a call minute', decimalOption)
    .option('--sms-rate <rate>', 'price of an SMS part', decimalOption);
}

function userInput(opts: Record<string, string | boolean | undefined>): UserInput {
  return {
    password: opts.password as string | undefined,
    is_admin: opts.admin as boolean | undefined,
    email: opts.email as string | undefined,
    first_name: opts.firstName as string | undefined,
    last_name: opts.lastName as string | undefined,
    balance: opts.balance as string | undefined,
    call_rate: opts.callRate as string | undefined,
    sms_rate: opts.smsRate as string | undefined,
  };
}

/**
 * The resources' commands, each in its own <name>.cli.ts. They import their services, schemas
 * and the CSV import, which `serve` does not need: a serving process skips them (issue 5: an
 * engine process loads only what it runs).
 */
async function importResourceCommands(): Promise<((program: Command) => void)[]> {
  const [queue, gateway, smsGateway, bulk, phone] = await Promise.all([
    import('./resources/queue/queue.cli.ts'),
    import('./resources/gateway/gateway.cli.ts'),
    import('./resources/sms-gateway/sms-gateway.cli.ts'),
    import('./resources/bulk/bulk.cli.ts'),
    import('./resources/phone/phone.cli.ts'),
  ]);
  return [
    queue.registerQueueCommands,
    gateway.registerGatewayCommands,
    smsGateway.registerSmsGatewayCommands,
    bulk.registerBulkCommands,
    phone.registerPhoneCommands,
  ];
}

/**
 * The command line; `withResourceCommands: false` leaves out the resources' commands. With
 * `output`, commander writes help and usage errors there and throws instead of exiting (a
 * command run inside the server for a CLI process, control.ts).
 */
export async function buildProgram({ withResourceCommands = true, output }: { withResourceCommands?: boolean; output?: ForwardedRun } = {}): Promise<Command> {
  const program = new Command('campaign-dialer')
    .description('Outbound voice and SMS campaigns with a Newfies-Dialer compatible REST API.')
    .showHelpAfterError('(run with --help for usage)');
  // Set before the commands are added: subcommands copy these settings when they are created.
  if (output) program.exitOverride().configureOutput({ writeOut: output.stdout, writeErr: output.stderr });

  program
    .command('serve')
    .description('run the REST API and/or the dialer engine until SIGTERM/SIGINT')
    .addOption(new Option('--role <role>', 'what this process runs').choices(Roles).default('all'))
    .action(async (opts: { role: Role }) => serveUntilSignalled(loadConfig(), opts.role));

  program
    .command('migrate')
    .description('apply the database migrations and exit')
    .action(async () => {
      await withDatabase(async () => {});
      print('database is up to date');
    });

  const user = program.command('user').description('create and update accounts');
  userOptions(
    user
      .command('create')
      .description('create a user')
      .requiredOption('--username <username>', 'login name')
      .requiredOption('--password <password>', 'password'),
  ).action(async (opts) => {
    const row = await withDatabase(({ db }) =>
      createUser(db, { ...userInput(opts), username: opts.username, password: opts.password }),
    );
    print(`created user ${row.username} (id ${row.id}${row.is_admin ? ', admin' : ''})`);
  });
  userOptions(
    user
      .command('update')
      .description('change a user')
      .argument('<username>', 'the user to change')
      .option('--password <password>', 'new password'),
  ).action(async (username: string, opts) => {
    const row = await withDatabase(({ db }) => changeUser(db, username, userInput(opts)));
    print(`updated user ${row.username} (id ${row.id})`);
  });
  for (const [name, is_active] of [['deactivate', false], ['activate', true]] as const) {
    user
      .command(name)
      .description(is_active ? 'let a deactivated user authenticate again' : "refuse the user's password and tokens from now on (their records stay)")
      .argument('<username>', 'the user')
      .action(async (username: string) => {
        const row = await withDatabase(({ db }) => changeUser(db, username, { is_active }));
        print(`${name}d user ${row.username} (id ${row.id})`);
      });
  }

  const token = program.command('token').description('API tokens');
  token
    .command('list')
    .description("list tokens: id, key prefix, owner, created (the keys themselves are never shown again)")
    .option('--username <username>', "only this user's tokens")
    .action(async (opts: { username?: string }) => {
      const rows = await withDatabase(async ({ db }) => {
        const owner = opts.username === undefined ? undefined : await findUserByUsername(db, opts.username);
        if (opts.username !== undefined && !owner) throw new CliError(`no user "${opts.username}"`);
        return listTokens(db, owner && eq(apiTokens.user_id, owner.id), 1_000_000, 0);
      });
      for (const row of rows) print(`${row.id}\t${row.key_prefix}\t${row.username}\t${row.created_date}`);
    });
  token
    .command('revoke')
    .description('revoke a token: it stops working at once')
    .argument('<key>', 'the key, or its prefix (the part before the dot, as token list shows it)')
    .action(async (key: string) => {
      const prefix = key.split('.')[0];
      const revoked = await withDatabase(({ db }) => deleteTokensByPrefix(db, prefix));
      if (revoked === 0) throw new CliError(`no token with prefix "${prefix}"`);
      print(`revoked ${revoked} token${revoked === 1 ? '' : 's'} with prefix ${prefix}`);
    });
  token
    .command('create')
    .description('issue a new API token for a user (printed once, stored hashed)')
    .requiredOption('--username <username>', 'the token owner')
    .action(async (opts: { username: string }) => {
      const key = await withDatabase(({ db }) => createToken(db, opts.username));
      print(key);
    });

  if (withResourceCommands) for (const register of await importResourceCommands()) register(program);

  return program;
}

function errorLine(err: unknown): string {
  const known = err instanceof ConfigError || err instanceof AccountError || err instanceof CliError;
  return `campaign-dialer: ${known ? (err as Error).message : String((err as Error)?.message ?? err)}\n`;
}

/** Runs a CLI process's command line inside the server (control.ts); returns its exit code. */
export async function runCommand(argv: string[], run: ForwardedRun): Promise<number> {
  if (argv[0] === 'serve') {
    run.stderr(`campaign-dialer: a server is already running on this DATA_DIR (pid ${process.pid})\n`);
    return 1;
  }
  return runForwarded(run, async () => {
    try {
      const program = await buildProgram({ output: run });
      await program.parseAsync(argv, { from: 'user' });
      return 0;
    } catch (err) {
      if (err instanceof CommanderError) return err.exitCode; // commander has written its message
      run.stderr(errorLine(err));
      return 1;
    }
  });
}

/** The campaign-dialer command (bin/campaign-dialer.js). */
export async function main(): Promise<void> {
  try {
    const argv = process.argv.slice(2);
    // `serve` is the first argument, or it is not run (the program has no global options).
    if (argv[0] !== 'serve') {
      // While a server holds the embedded database, it runs the command (control.ts).
      const exit = await forwardToServer(argv, loadConfig());
      if (exit !== undefined) {
        process.exitCode = exit;
        return;
      }
    }
    const program = await buildProgram({ withResourceCommands: argv[0] !== 'serve' });
    await program.parseAsync(process.argv);
  } catch (err) {
    process.stderr.write(errorLine(err));
    process.exit(1);
  }
}
