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
      'recompute the key of every number written without + (after the upgrade to keys, or a change of DEFAULT_COUNTRY or of an account\'s default_country), and the time zone of subscribers not yet final whose key changed',
    )
    .action(async () => {
      const { defaultCountry, timeZone } = loadConfig();
      const counts = await withDatabase(({ db }) => rekeyNumbers(db, defaultCountry, timeZone)).catch((err: unknown) => {
        throw new CliError(`rekey failed: ${(err as Error).message}`);
      });
      const lines = [
        ...Object.entries(counts.keys).map(([table, n]) => `${table}: ${n} keys changed`),
        ...Object.entries(counts.zones).map(([table, n]) => `${table}: ${n} time zones changed`),
      ];
      print(lines.join('\n'));
    });
}
