// The envforge command line: one commander program with a command per pipeline step; errors become a
// message and an exit code (0 ok, 1 rejected or failed, 2 usage), never a bare stack trace.
import { Command, CommanderError } from 'commander';
import { EnvforgeError, UsageError } from '../contract/errors.js';
import { CliFailure, processIo, type Io } from './io.js';
import { registerPlay } from './play.js';
import { registerSample } from './sample.js';
import { registerValidate } from './validate.js';
import { registerLibrary } from './library.js';
import { registerExport } from './export.js';
import { registerServe } from './serve.js';
import { registerRun } from './run.js';
import { registerDashboard } from './dashboard.js';
import { registerNightly } from './nightly.js';
import { registerWorker } from './worker.js';
import { VERSION } from '../contract/version.js';

export function buildProgram(io: Io): Command {
  const program = new Command('envforge')
    .description('Grow a library of verifiable RL environments: architect -> generator -> sandboxed validator -> library.')
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();
  registerSample(program, io);
  registerPlay(program, io);
  registerValidate(program, io);
  registerLibrary(program, io);
  registerExport(program, io);
  registerServe(program, io);
  registerRun(program, io);
  registerDashboard(program, io);
  registerNightly(program, io);
  registerWorker(program, io);
  const configure = (command: Command): void => {
    command.exitOverride().configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) });
    command.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  return program;
}

/** Runs the CLI and returns the exit code. */
export async function runCli(argv: string[], io: Io = processIo()): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return io.exitCode ?? 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      return 2; // commander already printed the message
    }
    if (error instanceof CliFailure) {
      io.err(`envforge: ${error.message}`);
      return error.exitCode;
    }
    if (error instanceof UsageError) {
      io.err(`envforge: ${error.message}`);
      return 2;
    }
    if (error instanceof EnvforgeError) {
      io.err(`envforge: ${error.code}: ${error.message}`);
      return 1;
    }
    io.err(`envforge: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  }
}
