// The nightly run's settings (`envforge nightly --config FILE`, JSON): what the batch aims at and may
// spend, when an environment counts as saturated, and which dataset snapshot to write. Defaults in one place.
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../contract/errors.js';
import { FORMAT_NAMES } from '../export/registry.js';
import { RUN_KINDS } from '../agents/spec.js';
import { SELECTABLE_KINDS } from '../library/select.js';

const Formats = z.array(z.enum(FORMAT_NAMES as [string, ...string[]])).min(1);

export const NightlyConfigSchema = z.strictObject({
  /** The library folder or database URL (default: $ENVFORGE_LIBRARY, else generated/). */
  library: z.string().min(1).optional(),
  /** Trainer evaluations; without one, the pass rates the reward service recorded. */
  feedback: z.string().min(1).optional(),
  /** Which environments the batch writes (as `envforge run --kind`; mixed: each kind is kept half of the target). */
  kind: z.enum(RUN_KINDS).default('mixed'),
  target: z.number().int().min(1).max(10_000).default(10),
  maxCandidates: z.number().int().min(1).optional(),
  budgetUsd: z.number().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  weakShare: z.number().min(0).max(1).default(0.6),
  repairRounds: z.number().int().min(0).max(10).default(2),
  concurrency: z.number().int().min(1).max(64).default(2),
  /** The LLM (as `envforge run` takes it); none configured anywhere: the offline author. */
  llm: z
    .strictObject({
      provider: z.enum(['openai', 'anthropic', 'offline']).optional(),
      model: z.string().optional(),
      baseUrl: z.string().optional(),
      config: z.string().optional(),
    })
    .default({}),
  /** The offline author's seed (default: derived from the night). */
  seed: z.number().int().min(0).optional(),
  /** An environment the trainer passes at this rate or more, over at least minAttempts, is retired as saturated. */
  retireAt: z.number().min(0).max(1).default(0.9),
  minAttempts: z.number().int().min(1).default(20),
  export: z
    .strictObject({
      /** Snapshots go to OUT/<night>/<format>/; a relative OUT is beside the library (LIBRARY/snapshots by default). */
      out: z.string().min(1).default('snapshots'),
      formats: Formats.default(['jsonl']),
      /** Only environments of this kind in the snapshot (default: both). */
      kind: z.enum(SELECTABLE_KINDS).optional(),
      perEnv: z.number().int().min(1).max(1_000_000).default(100),
      seed: z.number().int().min(0).default(0),
    })
    .default({ out: 'snapshots', formats: ['jsonl'], perEnv: 100, seed: 0 }),
});
export type NightlyConfig = z.infer<typeof NightlyConfigSchema>;

/** The config file's settings over the defaults; a bad file is a UsageError naming each field. */
export function loadNightlyConfig(file?: string): NightlyConfig {
  let raw: unknown = {};
  if (file) {
    try {
      raw = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new UsageError(`--config ${file}: ${(error as Error).message}`, { cause: error });
    }
  }
  const parsed = NightlyConfigSchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(
      `--config ${file}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}
