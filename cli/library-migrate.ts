// `envforge library migrate --from DIR --to postgres://…`: copies a SQLite library into an empty
// PostgreSQL one, verified by reading both back; the source is only read.
import { json, concat, line } from './io.js';
import type { Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import { importLibrary } from '../library/postgres/import.js';
import { PostgresLibrary } from '../library/postgres/store.js';
import type { Io } from './io.js';

export function registerLibraryMigrate(library: Command, io: Io): void {
  library
    .command('migrate')
    .description(
      'copy a library (every version, report, rejection, batch journal and incident) into an empty ' +
        'PostgreSQL library, and verify the copy',
    )
    .requiredOption('--from <dir>', 'the library folder to copy')
    .requiredOption('--to <url>', 'the PostgreSQL library to create, postgres://USER@HOST:PORT/DB')
    .option('--json', 'machine-readable output', false)
    .action(async (options: { from: string; to: string; json: boolean }) => {
      const to = resolveLibraryDir(undefined, options.to);
      const from = openLibrary(resolveLibraryDir(options.from), { readonly: true });
      const target = openLibrary(to, { create: true });
      try {
        if (!(target instanceof PostgresLibrary)) throw new UsageError('--to needs a PostgreSQL URL');
        const summary = await importLibrary(from, target);
        if (options.json) io.out(json({ from: from.dir, to: target.dir, ...summary, verified: true }));
        else
          io.out(
            concat(
              line`copied ${summary.environments} environment versions, ${summary.rejections} rejections, `,
              line`${summary.batches} batches (${summary.journalEntries} journal entries) and ${summary.incidents} `,
              line`incidents from ${from.dir} to ${target.dir}; the copy reads back identically`,
            ),
          );
      } finally {
        await from.close();
        await target.close();
      }
    });
}
