// `envforge library rejections [--batch ID] [--code CODE]`: the kept reports of rejected candidates,
// newest first, each with its first problem; --json gives one line per rejection with every problem.
import { json, concat, line } from './io.js';
import type { Command } from 'commander';
import { isProblemCode } from '../contract/codes.js';
import { UsageError } from '../contract/errors.js';
import type { RejectionRecord } from '../library/contract.js';
import { openLibrary, resolveLibraryDir } from '../library/open.js';
import type { Io } from './io.js';
import { DATABASE_HELP, integerOption } from './options.js';
import { guestLine } from '../contract/text.js';

interface RejectionsOptions {
  library?: string;
  database?: string;
  json: boolean;
  batch?: string;
  code?: string;
  limit: number;
}

/** Who the candidate was: the spec it was written for (and the attempt it repaired), else its meta name. */
function candidateOf(r: RejectionRecord): string {
  const spec = (r.lineage.spec as { name?: unknown } | undefined)?.name;
  const label = typeof spec === 'string' ? spec : (r.name ?? r.hash.slice(0, 12));
  return r.lineage.parent ? `${label} (repair of ${r.lineage.parent})` : label;
}

export function registerLibraryRejections(library: Command, io: Io): void {
  library
    .command('rejections')
    .description('rejected candidates kept by the library, newest first, each with its first problem')
    .option('--library <dir>', "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option('--json', 'one JSON line per rejection, with every problem', false)
    .option('--batch <id>', 'only the rejections of this batch')
    .option('--code <code>', 'only rejections with a problem of this code (see contract/codes.ts)')
    .option('--limit <N>', 'at most this many', integerOption('--limit', 1, 1_000_000), 100)
    .addHelpText(
      'after',
      '\nExamples:\n  envforge library rejections --batch batch-20260101T010203Z-42\n  envforge library ' +
        'rejections --code E_SEED_IGNORED --json | jq .firstProblem',
    )
    .action(async (options: RejectionsOptions) => list(options, io));
}

async function list(options: RejectionsOptions, io: Io): Promise<void> {
  if (options.code !== undefined && !isProblemCode(options.code))
    throw new UsageError(`--code: unknown code "${options.code}" (the codes are listed in contract/codes.ts)`);
  const lib = openLibrary(resolveLibraryDir(options.library, options.database), { readonly: true });
  try {
    if (options.batch !== undefined && !(await lib.getBatch(options.batch)))
      throw new UsageError(`--batch: no batch "${options.batch}" in this library`);
    const found = await lib.rejections({
      ...(options.batch ? { batchId: options.batch } : {}),
      ...(options.code ? { code: options.code } : {}),
      limit: options.limit,
    });
    for (const r of found) {
      if (options.json) {
        const problems = r.report.problems.map((p) => ({
          code: p.code,
          stage: p.stage,
          message: p.message,
          ...(p.evidence === undefined ? {} : { evidence: p.evidence }),
        }));
        io.out(
          json({
            candidate: candidateOf(r),
            name: r.name,
            hash: r.hash,
            batchId: r.lineage.batchId ?? null,
            author: r.lineage.author,
            createdAt: r.createdAt,
            codes: r.codes,
            firstProblem: r.firstProblem,
            problems,
          }),
        );
        continue;
      }
      const first = r.firstProblem
        ? `${r.firstProblem.code} [${r.firstProblem.stage}] ${guestLine(r.firstProblem.message)}`
        : '(no problem recorded)';
      io.out(line`${r.createdAt}  ${r.lineage.batchId ?? r.lineage.author}  ${candidateOf(r)}`);
      const also = r.codes.length > 1 ? `  (also ${r.codes.filter((c) => c !== r.firstProblem?.code).join(', ')})` : '';
      io.out(line`  ${first}${also}`);
    }
    if (!options.json)
      io.out(
        concat(
          line`${found.length} rejection${found.length === 1 ? '' : 's'}`,
          line`${found.length === options.limit ? ` (the newest ${options.limit}; --limit shows more)` : ''}`,
        ),
      );
  } finally {
    await lib.close();
  }
}
