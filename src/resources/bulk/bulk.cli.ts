/**
 * `campaign-dialer import contacts|dnc FILE`: the same import as the HTTP route, fed a file
 * stream, with a progress bar on a terminal and the same summary at the end.
 */
import fs from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { eq } from 'drizzle-orm';
import { loadConfig } from '../../config.ts';
import { CliError, cliPath, print, printError, stderrIsTTY, withDatabase } from '../../cli-support.ts';
import { dncLists, phonebooks } from '../../db/schema.ts';
import { contactTarget, dncTarget, type ImportTarget } from './bulk.csv.ts';
import { importCsv, ImportFileError, type ImportSummary } from './bulk.import.ts';

function positiveId(value: string): number {
  if (!/^\d{1,10}$/.test(value) || Number(value) < 1) throw new InvalidArgumentError('expected a positive whole number');
  return Number(value);
}

interface ImportJob {
  file: string;
  target: ImportTarget;
  parent: typeof phonebooks | typeof dncLists;
  parentName: string;
  parentId: number;
  skipDuplicates: boolean;
}

/** A one-line progress bar on stderr: percentage of bytes read, rows and rows/s. */
function progressBar(stream: fs.ReadStream, total: number) {
  const started = Date.now();
  let rows = 0;
  const draw = () => {
    const share = total > 0 ? Math.min(1, stream.bytesRead / total) : 1;
    const rate = Math.round(rows / Math.max(0.001, (Date.now() - started) / 1000));
    const bar = '#'.repeat(Math.round(share * 30)).padEnd(30, '.');
    printError(`\r[${bar}] ${(share * 100).toFixed(0).padStart(3)}%  ${rows.toLocaleString('en')} rows  ${rate.toLocaleString('en')} rows/s `);
  };
  const timer = setInterval(draw, 200);
  return {
    update: (n: number) => (rows = n),
    stop() {
      clearInterval(timer);
      draw();
      printError('\n');
    },
  };
}

export function formatSummary(summary: ImportSummary, seconds: number): string {
  const lines = [
    `imported ${summary.imported} rows, skipped ${summary.duplicates_skipped} duplicates, ` +
      `rejected ${summary.rejected_count} rows (${seconds.toFixed(1)} s)`,
    ...summary.rejected.map((r) => `  line ${r.line}: ${r.error}`),
  ];
  if (summary.rejected_count > summary.rejected.length) {
    lines.push(`  … and ${summary.rejected_count - summary.rejected.length} more rejected rows`);
  }
  return lines.join('\n');
}

async function runImport(job: ImportJob): Promise<void> {
  // Relative to the CLI's directory, also when the server runs the command for it (control.ts).
  const file = cliPath(job.file);
  let size: number;
  try {
    size = fs.statSync(file).size;
  } catch (err) {
    throw new CliError(`cannot read ${job.file}: ${(err as Error).message}`);
  }
  const started = Date.now();
  const summary = await withDatabase(async (database) => {
    const found = await database.db.select({ id: job.parent.id }).from(job.parent).where(eq(job.parent.id, job.parentId));
    if (found.length === 0) throw new CliError(`there is no ${job.parentName} with id ${job.parentId}`);
    const stream = fs.createReadStream(file, { highWaterMark: 256 * 1024 });
    const bar = stderrIsTTY() ? progressBar(stream, size) : undefined;
    try {
      return await importCsv(database, job.target, job.parentId, stream, {
        skipDuplicates: job.skipDuplicates,
        defaultCountry: loadConfig().defaultCountry,
        onProgress: bar?.update,
      });
    } catch (err) {
      throw err instanceof ImportFileError ? new CliError(`${job.file}: ${err.message}`) : err;
    } finally {
      bar?.stop();
    }
  });
  print(formatSummary(summary, (Date.now() - started) / 1000));
}

export function registerBulkCommands(program: Command): void {
  const command = program.command('import').description('import contacts or DNC numbers from a CSV file');
  command
    .command('contacts')
    .description('import contacts into a phonebook (header row: contact, full_name, status, additional_vars or other columns)')
    .argument('<file>', 'the CSV file')
    .requiredOption('--phonebook <id>', 'the phonebook to import into', positiveId)
    .option('--skip-duplicates', 'skip numbers already in the phonebook and repeats within the file', false)
    .action(async (file: string, opts: { phonebook: number; skipDuplicates: boolean }) =>
      runImport({ file, target: contactTarget, parent: phonebooks, parentName: 'phonebook', parentId: opts.phonebook, skipDuplicates: opts.skipDuplicates }),
    );
  command
    .command('dnc')
    .description('import numbers into a DNC list (a phone_number or contact column, or a single column of numbers)')
    .argument('<file>', 'the CSV file')
    .requiredOption('--dnc <id>', 'the DNC list to import into', positiveId)
    .option('--skip-duplicates', 'skip numbers already in the list and repeats within the file', false)
    .action(async (file: string, opts: { dnc: number; skipDuplicates: boolean }) =>
      runImport({ file, target: dncTarget, parent: dncLists, parentName: 'DNC list', parentId: opts.dnc, skipDuplicates: opts.skipDuplicates }),
    );
}
