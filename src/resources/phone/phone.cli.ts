/** `campaign-dialer phone rekey`: numbers' keys recomputed (contract §1, src/campaign/phone-rekey.ts). */
import type { Command } from 'commander';
import { rekeyNumbers } from '../../campaign/phone-rekey.ts';
import { CliError, print, withDatabase } from '../../cli-support.ts';
import { loadConfig } from '../../config.ts';

export function registerPhoneCommands(program: Command): void {
  const phone = program.command('phone').description("phone numbers' identities (keys)");
  phone
    .command('rekey')
    .description(
      'recompute the key of every number written without + (after the upgrade to keys, or a change of DEFAULT_COUNTRY or of an account\'s default_country)',
    )
    .action(async () => {
      const { defaultCountry } = loadConfig();
      const counts = await withDatabase(({ db }) => rekeyNumbers(db, defaultCountry)).catch((err: unknown) => {
        throw new CliError(`rekey failed: ${(err as Error).message}`);
      });
      print(Object.entries(counts).map(([table, n]) => `${table}: ${n} keys changed`).join('\n'));
    });
}
