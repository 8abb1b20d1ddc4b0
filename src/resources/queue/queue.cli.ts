/** `campaign-dialer queue create`: queues are made here, or by an admin at /rest-api/accounts/<id>/queues/. */
import type { Command } from 'commander';
import { CliError, print, withDatabase } from '../../cli-support.ts';
import { QueueStrategy } from '../../db/schema.ts';
import { findUserByUsername } from '../../users/users.repository.ts';
import { insertQueue } from './queue.repository.ts';

const strategies: readonly number[] = Object.values(QueueStrategy);

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed === '' || trimmed.length > 100) throw new CliError('--name must be 1 to 100 characters');
  return trimmed;
}

function checkStrategy(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || !strategies.includes(Number(raw))) {
    throw new CliError(`--strategy must be one of ${strategies.join(', ')}, got "${raw}"`);
  }
  return Number(raw);
}

export function registerQueueCommands(program: Command): void {
  program
    .command('queue')
    .description('call-center queues (sections of type 12 hand calls to them)')
    .command('create')
    .description('create a queue owned by a user')
    .requiredOption('--name <name>', 'queue name')
    .requiredOption('--manager <username>', 'the owning user')
    .option('--strategy <n>', `1 ring-all … 9 ring-progressively (default ${QueueStrategy.AgentWithLeastTalkTime})`)
    .action(async (opts: { name: string; manager: string; strategy?: string }) => {
      const name = checkName(opts.name);
      const strategy = checkStrategy(opts.strategy);
      const row = await withDatabase(async ({ db }) => {
        const owner = await findUserByUsername(db, opts.manager);
        if (!owner) throw new CliError(`no user named "${opts.manager}"`);
        return insertQueue(db, { name, user_id: owner.id, strategy });
      });
      print(`created queue ${row.name} (id ${row.id}) managed by ${opts.manager}`);
    });
}
