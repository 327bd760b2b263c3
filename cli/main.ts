#!/usr/bin/env node
// The `envforge` executable.
import { runCli } from './program.js';

process.exitCode = await runCli(process.argv.slice(2));
