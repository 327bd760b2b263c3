// `envforge library init|add|list|show|rejections|retire|revalidate|stats|check`: the library's own
// commands, each with --json and --library DIR (add and rejections live in their own files).
import { concat, json, line, lines, type Printed, verbatim } from './io.js';
import { Option, type Command } from 'commander';
import { UsageError } from '../contract/errors.js';
import type { EnvRecord, Library } from '../library/contract.js';
import { seedLibrary, revalidate } from '../library/maintenance.js';
import { SEED_KINDS, type SeedKind } from '../library/seeds.js';
import { KIND_HELP, recordKind, SELECTABLE_KINDS, type SelectableKind } from '../library/select.js';
import { libraryExists, openLibrary, resolveLibraryDir } from '../library/open.js';
import { SandboxPool } from '../sandbox/pool.js';
import type { Io } from './io.js';
import { DATABASE_HELP } from './options.js';
import { registerLibraryAdd } from './library-add.js';
import { registerLibraryMigrate } from './library-migrate.js';
import { registerLibraryRejections } from './library-rejections.js';
import { parseRef, requireEnv } from './resolve.js';

interface Common {
  library?: string;
  database?: string;
  json: boolean;
}

const LIBRARY_HELP = "library folder (default: $ENVFORGE_LIBRARY, else the project's generated/)";

async function withLibrary<T>(options: Common, readonly: boolean, fn: (library: Library) => Promise<T>): Promise<T> {
  const library = openLibrary(resolveLibraryDir(options.library, options.database), { readonly });
  try {
    return await fn(library);
  } finally {
    await library.close();
  }
}

function summary(env: EnvRecord): Printed {
  const status = env.status === 'retired' ? `  retired: ${env.retiredReason}` : '';
  return concat(
    line`${`${env.name}@${env.version}`.padEnd(36)} ${recordKind(env).padEnd(8)} `,
    line`${env.meta.skills.join(',').padEnd(32)} levels 1-${String(env.meta.levels).padEnd(3)} `,
    line`${env.lineage.author}${status}`,
  );
}

function brief(env: EnvRecord): Record<string, unknown> {
  return {
    name: env.name,
    version: env.version,
    kind: recordKind(env),
    hash: env.hash,
    status: env.status,
    retiredReason: env.retiredReason,
    skills: env.meta.skills,
    levels: env.meta.levels,
    author: env.lineage.author,
    createdAt: env.createdAt,
  };
}

export function registerLibrary(program: Command, io: Io): void {
  const library = program
    .command('library')
    .description(
      'the library of admitted environments: init, add, list, show, rejections, retire, ' +
        'revalidate, stats, check, migrate',
    );
  const common = (command: Command) =>
    command
      .option('--library <dir>', LIBRARY_HELP)
      .option('--database <url>', DATABASE_HELP)
      .option('--json', 'machine-readable output', false);

  common(
    library
      .command('init')
      .description(
        'create a library and admit the seed environments of both kinds (validated first: the 8 episodic ' +
          'ones take about a minute); safe to re-run',
      ),
  )
    .addOption(
      new Option('--kind <kind>', 'only the seeds of this kind: single or episodic (default: both)').choices(
        SEED_KINDS,
      ),
    )
    .action(async (options: Common & { kind?: SeedKind }) => {
      const dir = resolveLibraryDir(options.library, options.database);
      const created = !(await libraryExists(dir));
      const lib = openLibrary(dir, { create: true });
      const pool = new SandboxPool();
      try {
        const outcomes = await seedLibrary(
          lib,
          pool,
          (o) => {
            if (!options.json)
              io.out(
                concat(
                  line`${o.status === 'rejected' ? '✗' : '✓'} ${o.name}${o.version ? `@${o.version}` : ''}  `,
                  line`${o.status}${o.problems ? `: ${o.problems[0]}` : ''}`,
                ),
              );
          },
          options.kind ? [options.kind] : SEED_KINDS,
        );
        if (options.json) io.out(json({ library: dir, created, seeds: outcomes }));
        else io.out(line`${created ? 'created' : 'updated'} the library at ${dir}`);
        if (outcomes.some((o) => o.status === 'rejected')) io.exitCode = 1;
      } finally {
        await pool.close();
        await lib.close();
      }
    });

  registerLibraryAdd(library, io);
  registerLibraryRejections(library, io);
  registerLibraryMigrate(library, io);

  common(library.command('list').description('admitted environments, newest version of each'))
    .option('--status <status>', 'active, retired or all', 'active')
    .option('--skills <list>', 'only environments with one of these comma-separated skills')
    .addOption(new Option('--kind <kind>', KIND_HELP).choices(SELECTABLE_KINDS))
    .option('--all-versions', 'every version, not only the newest', false)
    .action(
      async (options: Common & { status: string; skills?: string; kind?: SelectableKind; allVersions: boolean }) => {
        if (!['active', 'retired', 'all'].includes(options.status))
          throw new UsageError(`--status must be active, retired or all, not "${options.status}"`);
        await withLibrary(options, true, async (lib) => {
          const listed = await lib.list({
            status: options.status as 'active',
            allVersions: options.allVersions,
            ...(options.skills ? { skills: options.skills.split(',').map((s) => s.trim()) } : {}),
          });
          const envs = options.kind ? listed.filter((e) => recordKind(e) === options.kind) : listed;
          if (options.json) for (const env of envs) io.out(json(brief(env)));
          else {
            for (const env of envs) io.out(summary(env));
            io.out(line`${envs.length} environment${envs.length === 1 ? '' : 's'}`);
          }
        });
      },
    );

  common(
    library
      .command('show')
      .description('one environment: meta, lineage, status, difficulty curve')
      .argument('<name[@version]>'),
  )
    .option('--source', 'print the module source instead', false)
    .action(async (ref: string, options: Common & { source: boolean }) => {
      await withLibrary(options, true, async (lib) => {
        const env = await requireEnv(lib, ref);
        if (options.source) return io.out(verbatim(await lib.source(env), 'source'));
        if (options.json) return io.out(json(env));
        io.out(summary(env));
        io.out(line`  ${env.meta.title}: ${env.meta.description}`);
        io.out(line`  hash ${env.hash}  validator ${env.validatorVersion}  admitted ${env.createdAt}`);
        io.out(line`  lineage ${JSON.stringify(env.lineage)}`);
        io.out(line`  level  prompt  instance  distinct answers`);
        for (const l of env.curve)
          io.out(
            concat(
              line`  ${String(l.level).padStart(5)}  ${l.promptChars.toFixed(0).padStart(6)}  `,
              line`${l.instanceChars.toFixed(0).padStart(8)}  ${String(l.distinctAnswers).padStart(16)}`,
            ),
          );
      });
    });

  common(
    library
      .command('retire')
      .description('retire an environment (every active version, or NAME@VERSION)')
      .argument('<name[@version]>'),
  )
    .requiredOption('--reason <text>', 'why it is retired, kept with it (required)')
    .action(async (ref: string, options: Common & { reason: string }) => {
      const { name, version } = parseRef(ref);
      if (!options.reason.trim())
        throw new UsageError('--reason needs a non-empty text: why the environment is retired');
      await withLibrary(options, false, async (lib) => {
        await requireEnv(lib, ref);
        const changed = await lib.retire(name, options.reason, version);
        if (options.json) io.out(json({ retired: changed.map(brief) }));
        else
          io.out(
            changed.length
              ? lines(changed.map((e) => line`retired ${e.name}@${e.version}`))
              : line`nothing to retire: ${ref} is not active`,
          );
      });
    });

  common(
    library
      .command('revalidate')
      .description(
        're-run the validator on active environments (replaying their production incidents) and ' +
          'retire those it now rejects',
      )
      .argument('[names...]'),
  ).action(async (names: string[], options: Common) => {
    await withLibrary(options, false, async (lib) => {
      const active = new Set((await lib.list()).map((e) => e.name));
      for (const name of names)
        if (!active.has(name))
          throw new UsageError(
            `"${name}" is not an active environment of this library (envforge library list shows them)`,
          );
      const pool = new SandboxPool();
      try {
        const outcomes = await revalidate(lib, pool, names, (o) => {
          if (options.json) io.out(json(o));
          else
            io.out(
              concat(
                line`${o.verdict === 'admit' ? '✓' : '✗'} ${o.name}@${o.version}  ${o.verdict}`,
                line`${o.retired ? ` → retired (${o.codes.join(', ')})` : ''}`,
                line`${o.incidents ? `  (${o.incidents} incidents replayed, resolved)` : ''}  ${o.ms} ms`,
              ),
            );
        });
        if (!options.json) io.out(line`${outcomes.filter((o) => o.retired).length} of ${outcomes.length} retired`);
      } finally {
        await pool.close();
      }
    });
  });

  common(
    library
      .command('stats')
      .description("counts by kind, skill, status and author, and the level range (the architect's coverage input)"),
  ).action(async (options: Common) => {
    await withLibrary(options, true, async (lib) => {
      const stats = await lib.stats();
      if (options.json) return io.out(json(stats));
      io.out(
        concat(
          line`${stats.environments} active environments, ${stats.versions} versions, ${stats.rejections} `,
          line`rejections kept (kinds, authors and skills count active environments)`,
        ),
      );
      io.out(
        line`versions by status: ${
          Object.entries(stats.byStatus)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || '-'
        }`,
      );
      io.out(
        line`kinds: ${
          Object.entries(stats.byKind ?? {})
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || '-'
        }`,
      );
      io.out(
        line`authors: ${
          Object.entries(stats.byAuthor)
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || '-'
        }`,
      );
      io.out(line`levels: ${stats.levels ? `${stats.levels.min}-${stats.levels.max}` : '-'}`);
      io.out(
        line`skills: ${
          Object.entries(stats.bySkill)
            .sort((a, b) => b[1] - a[1])
            .map(([k, v]) => `${k} ${v}`)
            .join(', ') || '-'
        }`,
      );
    });
  });

  common(
    library.command('check').description('integrity check: index, module files against their hashes, orphan files'),
  )
    .option('--gc', 'remove orphan files left by an interrupted admission', false)
    .action(async (options: Common & { gc: boolean }) => {
      await withLibrary(options, !options.gc, async (lib) => {
        const report = await lib.integrityCheck();
        const removed = options.gc ? await lib.gc() : [];
        if (options.json) io.out(json({ ...report, removed }));
        else {
          io.out(
            report.ok
              ? line`ok: ${report.checkedFiles} module files match their hashes`
              : lines([line`damaged:`, ...report.problems.map((p) => line`  ${p}`)]),
          );
          if (report.orphanFiles.length)
            io.out(line`${report.orphanFiles.length} orphan files${options.gc ? ' removed' : ' (remove with --gc)'}`);
        }
        if (!report.ok) io.exitCode = 1;
      });
    });
}
