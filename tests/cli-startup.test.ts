// What a command line loads before it runs: `envforge run` and `nightly` start without the LLM SDKs (loaded at a
// client's first request) and without pg-boss (loaded when a queue opens), in the built CLI as a user starts it.
import { execFile } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { MAIN } from './helpers/cli.js';

/** Packages a command loads only when it uses them: the LLM SDKs and the PostgreSQL work queue. */
const LATE = /\/node_modules\/(openai|@anthropic-ai\/sdk|pg-boss)\//;

/** The module URLs Node loads to build the program for `argv` (the built CLI's, in a process of its own). */
async function loadedFor(argv: string[]): Promise<string[]> {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
    const { buildProgram } = await import(${JSON.stringify(new URL('program.js', pathToFileURL(MAIN)).href)});
    await buildProgram({ out: () => {}, err: () => {} }, ${JSON.stringify(argv)});
    process.stdout.write(JSON.stringify(seen));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as string[];
}

describe('command start-up', () => {
  it.each([['run'], ['nightly']])('%s loads its command but neither LLM SDK nor pg-boss', async (command) => {
    const loaded = await loadedFor([command]);
    // The hook saw the command's own module and the packages it does load, so an absence below means something.
    expect(loaded.some((url) => url.endsWith(`/dist/cli/${command}.js`))).toBe(true);
    expect(loaded.some((url) => url.includes('/node_modules/zod/'))).toBe(true);
    expect(loaded.filter((url) => LATE.test(url))).toEqual([]);
  });
});
