// How the test run shares the machine's cores: vitest runs FILES_AT_ONCE test files at a time (vitest.config.ts), and a
// file that validates modules gives its sandbox pool its share of the cores (FILE_WORKERS), not every core: two such
// files with a pool of every core each ran four sandbox workers and two supervisors on 2 cores, and a validation
// sharded over two workers builds its realms and step memos twice (~9% more CPU than on one, reports identical).
import { availableParallelism } from 'node:os';

export const FILES_AT_ONCE = 2;

/** Sandbox workers for a validating test file's pool: its share of the cores, at least one. */
export const FILE_WORKERS = Math.max(1, Math.floor(availableParallelism() / FILES_AT_ONCE));
