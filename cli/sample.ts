// `envforge sample`: prints instances of an environment (prompt; with --reveal the hidden fields and
// the reference response; episodic: prompt, tools and a reference rollout), as text or one JSON object per line.
import type { Command } from 'commander';
import { parseEpisodicMeta } from '../contract/episodic.js';
import { MetaSchema } from '../contract/schema.js';
import { kindOf } from '../kinds/registry.js';
import { sampleEpisodic } from './episodic.js';
import { SandboxPool } from '../sandbox/pool.js';
import { DATABASE_HELP, integerOption } from './options.js';
import { blame, resolveEnv } from './resolve.js';
import { json, block, CliFailure, type Io, line } from './io.js';

interface SampleOptions {
  level?: number;
  seed: number;
  n: number;
  reveal: boolean;
  json: boolean;
  library?: string;
  database?: string;
}

export function registerSample(program: Command, io: Io): void {
  program
    .command('sample')
    .description('print instances of an environment (a module file, a library environment NAME[@VERSION], or a seed)')
    .argument('<env>', 'path to an environment module (.js), NAME or NAME@VERSION in the library, or a seed name')
    .option('--library <dir>', "library to look NAME up in (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('--database <url>', DATABASE_HELP)
    .option('-l, --level <L>', 'difficulty level (default: 1)', integerOption('--level', 1, 1000))
    .option('-s, --seed <S>', 'first seed', integerOption('--seed', 0), 0)
    .option('-n, --n <N>', 'how many instances (seeds S, S+1, …)', integerOption('-n', 1, 10_000), 1)
    .option(
      '--reveal',
      'also print the hidden fields and the reference response (episodic: a reference rollout turn by turn)',
      false,
    )
    .option('--json', 'one JSON object per instance per line', false)
    .addHelpText(
      'after',
      '\nExamples:\n  envforge sample topological-order --level 5 -n 3\n  envforge sample my-env@2 --library ' +
        './lib\n  envforge sample ./my-env.js --reveal --json',
    )
    .action(async (target: string, options: SampleOptions) => sample(target, options, io));
}

async function sample(target: string, options: SampleOptions, io: Io): Promise<void> {
  const env = await resolveEnv(target, options.library, options.database);
  const pool = new SandboxPool({ workers: 1 });
  try {
    const load = await pool.load(env.source);
    if (!load.ok) throw new CliFailure(`${env.label}: ${load.code}: ${blame(load.message, env.label)}`);
    if (kindOf(load.meta).rollouts) {
      const episodicMeta = parseEpisodicMeta(load.meta);
      if (!episodicMeta)
        throw new CliFailure(`${env.label}: meta does not match contract v2 (envforge validate says why)`);
      const level = options.level ?? 1;
      if (level > episodicMeta.levels)
        throw new CliFailure(
          `${env.label}: --level ${level} is past the environment's ${episodicMeta.levels} levels`,
          2,
        );
      await sampleEpisodic(
        pool,
        env.source,
        episodicMeta,
        { seed: options.seed, n: options.n, level, reveal: options.reveal, json: options.json },
        io,
      );
      return;
    }
    const meta = MetaSchema.safeParse(load.meta);
    const name = meta.success ? meta.data.name : '(invalid meta)';
    const level = options.level ?? 1;
    if (meta.success && level > meta.data.levels)
      throw new CliFailure(`${env.label}: --level ${level} is past the environment's ${meta.data.levels} levels`, 2);
    const requests = Array.from({ length: options.n }, (_, i) => ({ seed: options.seed + i, level }));
    const { episodes } = await kindOf(load.meta).runEpisodes(pool, env.source, requests);
    let failed = 0;
    for (const e of episodes) {
      if (!e.ok) {
        failed++;
        if (options.json)
          io.out(
            json({
              env: name,
              seed: e.seed,
              level: e.level,
              error: { code: e.code, fn: e.fn, message: e.message },
            }),
          );
        else io.err(line`seed ${e.seed} level ${e.level}: ${e.code} in ${e.fn}: ${blame(e.message, env.label)}`);
        continue;
      }
      const { prompt, ...hidden } = e.instance;
      const score = e.referenceVerdict.ok ? e.referenceVerdict.score : null;
      if (options.json) {
        io.out(
          json({
            env: name,
            seed: e.seed,
            level: e.level,
            prompt,
            ...(options.reveal ? { hidden, reference: e.reference, referenceScore: score } : {}),
          }),
        );
        continue;
      }
      io.out(line`── ${name}  seed=${e.seed}  level=${e.level} ──`);
      io.out(block(prompt));
      if (options.reveal) {
        io.out(line`\n[hidden] ${JSON.stringify(hidden)}`);
        io.out(line`[reference]`);
        io.out(block(e.reference));
        io.out(line`[reference score] ${score ?? `${(e.referenceVerdict as { code: string }).code}`}`);
      }
      io.out(line``);
    }
    if (failed > 0) throw new CliFailure(`${failed} of ${episodes.length} instances failed`);
  } finally {
    await pool.close();
  }
}
