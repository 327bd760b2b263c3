// The options of `envforge run` as commander hands them over, and the parsers of the flags that take a
// kind, a prompt profile, a share or a dollar amount.
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../contract/errors.js';
import { RUN_KINDS, type RunKind } from '../agents/spec.js';
import { canonicalKind } from '../kinds/registry.js';
import { PROFILE_CHOICES, type ProfileChoice } from '../agents/prompt-files.js';

export interface RunOptions {
  kind: RunKind;
  promptProfile?: ProfileChoice;
  target: number;
  maxCandidates: number;
  budgetUsd?: number;
  maxTokens?: number;
  concurrency: number;
  repairRounds: number;
  skills?: string;
  feedback?: string;
  weakShare: number;
  library?: string;
  database?: string;
  json: boolean;
  resume?: string | boolean;
  provider?: string;
  model?: string;
  baseUrl?: string;
  config?: string;
  cache: boolean;
  review: boolean;
  solverModel?: string;
  solverSamples: number;
  seed?: number;
  workers: string;
  jobTimeout: number;
  waitTimeout: number;
}

/** A kind's canonical name, or mixed; a kind's label ('single-turn') is accepted as an alias of its name. */
export function runKind(value: string): RunKind {
  const kind = canonicalKind(value) ?? value;
  if (!(RUN_KINDS as readonly string[]).includes(kind))
    throw new InvalidArgumentError(`expected one of ${RUN_KINDS.join(', ')}, got "${value}"`);
  return kind as RunKind;
}

/** Largest --seed: the offline author's seed is a 32-bit unsigned integer. */
export const MAX_SEED = 2 ** 32 - 1;

export function profileChoice(value: string): ProfileChoice {
  if (!(PROFILE_CHOICES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${PROFILE_CHOICES.join(', ')}, got "${value}"`);
  return value as ProfileChoice;
}

export function share(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError(`--weak-share needs a number from 0 to 1, got "${value}"`);
  return n;
}

export function dollars(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0)
    throw new UsageError(`--budget-usd needs a positive number of dollars, got "${value}"`);
  return n;
}
