// `envforge play ENV --seed N --level L`: steps an episodic environment by hand: a person (or a piped
// transcript) types one tool call per line and sees each observation and, at the end, the score.
import type { Command } from 'commander';
import { parseEpisodicMeta } from '../contract/episodic.js';
import { UsageError } from '../contract/errors.js';
import { SandboxPool } from '../sandbox/pool.js';
import { playEpisode } from './episodic.js';
import { CliFailure, type Io } from './io.js';
import { integerOption } from './options.js';
import { blame, resolveEnv } from './resolve.js';

interface PlayOptions {
  seed: number;
  level: number;
  json: boolean;
  library?: string;
}

export function registerPlay(program: Command, io: Io): void {
  program
    .command('play')
    .description(
      'play an episodic environment by hand: type tool calls, see observations and the final score (reads a pipe too)',
    )
    .argument('<env>', 'path to an episodic module (.js), NAME or NAME@VERSION in the library, or a seed name')
    .option('--library <dir>', "library to look NAME up in (default: $ENVFORGE_LIBRARY, else the project's generated/)")
    .option('-s, --seed <S>', 'seed', integerOption('--seed', 0), 0)
    .option('-l, --level <L>', 'difficulty level', integerOption('--level', 1, 1000), 1)
    .option('--json', 'one JSON event per line (reset, step, input-error, end)', false)
    .addHelpText(
      'after',
      '\nEach line is one tool call: NAME {"arg": value} (or NAME alone for no arguments); an empty line or ' +
        '"end" ends the episode.\n\nExamples:\n  envforge play warehouse-restock --seed 3 --level 2\n  ' +
        'envforge play ./my-env.js --json < transcript.txt',
    )
    .action(async (target: string, options: PlayOptions) => play(target, options, io.input ?? process.stdin, io));
}

async function play(target: string, options: PlayOptions, input: NodeJS.ReadableStream, io: Io): Promise<void> {
  const env = await resolveEnv(target, options.library);
  const pool = new SandboxPool({ workers: 1 });
  try {
    const load = await pool.load(env.source);
    if (!load.ok) throw new CliFailure(`${env.label}: ${load.code}: ${blame(load.message, env.label)}`);
    const meta = parseEpisodicMeta(load.meta);
    if (!meta)
      throw new UsageError(
        `${env.label} is not an episodic environment that matches contract v2 (play needs meta.kind ` +
          `'episodic'; envforge validate says what is wrong)`,
      );
    if (options.level > meta.levels)
      throw new UsageError(`${env.label}: --level ${options.level} is past the environment's ${meta.levels} levels`);
    await playEpisode(pool, env.source, meta, options, input, io);
  } finally {
    await pool.close();
  }
}
