#!/usr/bin/env node
// The `envforge` executable.
import { runCli } from './program.js';

// A reader that stops early (`envforge library list | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

process.exitCode = await runCli(process.argv.slice(2));
