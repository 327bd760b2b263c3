// The envforge command line: one commander program with a command per pipeline step; errors become a
// message and an exit code (0 ok, 1 rejected or failed, 2 usage), never a bare stack trace.
import { Command, CommanderError } from 'commander';
import { EnvforgeError, UsageError } from '../contract/errors.js';
import { CliFailure, type Io, labelled, line, processIo, verbatim } from './io.js';
import { VERSION } from '../contract/version.js';

type Register = (program: Command, io: Io) => void;
/**
 * Each command's module, in the order --help lists them, loaded only when needed: a command line that names one
 * loads that one (`library list` starts without the LLM clients, the server or the batch).
 */
const COMMANDS: Array<[string, () => Promise<Register>]> = [
  ['sample', async () => (await import('./sample.js')).registerSample],
  ['play', async () => (await import('./play.js')).registerPlay],
  ['validate', async () => (await import('./validate.js')).registerValidate],
  ['library', async () => (await import('./library.js')).registerLibrary],
  ['export', async () => (await import('./export.js')).registerExport],
  ['serve', async () => (await import('./serve.js')).registerServe],
  ['run', async () => (await import('./run.js')).registerRun],
  ['dashboard', async () => (await import('./dashboard.js')).registerDashboard],
  ['nightly', async () => (await import('./nightly.js')).registerNightly],
  ['worker', async () => (await import('./worker.js')).registerWorker],
];

/**
 * The program: with every command, or, given the command line, only the command it names (every one when it names
 * none).
 */
/** commander's own output (help, usage errors): the CLI's text, and the operator's own arguments echoed. */
function commanderOutput(io: Io) {
  return {
    writeOut: (s: string) => io.out(verbatim(s.trimEnd(), 'help')),
    writeErr: (s: string) => io.err(verbatim(s.trimEnd(), 'help')),
  };
}

export async function buildProgram(io: Io, argv?: readonly string[]): Promise<Command> {
  const program = new Command('envforge')
    .description(
      'Grow a library of verifiable RL environments: architect -> generator -> sandboxed validator -> library.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput(commanderOutput(io))
    .exitOverride();
  const named = argv?.find((arg) => !arg.startsWith('-'));
  const wanted = COMMANDS.filter(([name]) => name === named);
  for (const [, load] of wanted.length > 0 ? wanted : COMMANDS) (await load())(program, io);
  const configure = (command: Command): void => {
    command.exitOverride().configureOutput(commanderOutput(io));
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

/** Runs the CLI and returns the exit code. */
export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  const program = await buildProgram(io, argv);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (
        error.code === 'commander.helpDisplayed' ||
        error.code === 'commander.version' ||
        error.code === 'commander.help'
      )
        return 0;
      return 2; // commander already printed the message
    }
    if (error instanceof CliFailure) {
      failure(io, 'envforge: ', error.message);
      return error.exitCode;
    }
    if (error instanceof UsageError) {
      failure(io, 'envforge: ', error.message);
      return 2;
    }
    if (error instanceof EnvforgeError) {
      failure(io, `envforge: ${error.code}: `, error.message);
      return 1;
    }
    failure(io, 'envforge: internal error: ', error instanceof Error ? (error.stack ?? error.message) : String(error));
    return 1;
  }
}

/** A failure's message after its label: its first line on the label's line, the rest as a block under it. */
function failure(io: Io, label: string, message: string): void {
  io.err(labelled(line`${label}`, message));
}
