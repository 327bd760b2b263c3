// Typed episodes on top of the raw sandbox: generate -> solve -> verify runs whose values are checked
// against the contract, so callers (validator, sample, serve) see instances, references and verdicts
// or a failure with a stable code, never unchecked guest data.
import type { ProblemCode } from '../contract/codes.js';
import {
  CONTRACT_LIMITS,
  InstanceSchema,
  ReferenceSchema,
  describeIssues,
  toVerdict,
  type Instance,
  type Verdict,
} from '../contract/schema.js';
import { textProblem } from '../contract/text.js';
import type { SandboxPool } from './pool.js';
import {
  guestCode,
  HOST_VERDICTS,
  type CallResult,
  type EpisodeValue,
  type LoadInfo,
  type RawVerdict,
  type SandboxLimits,
} from './protocol.js';
import { z } from 'zod';

export interface EpisodeRequest {
  seed: number;
  level: number;
  /** Responses to score besides the reference. */
  responses?: string[];
}

/**
 * A verdict, or the reason verify failed on that response; `clocked` where the clock stopped the scored program (a
 * cause a loaded machine can have alone: the code kind's answer pool); `stopped` where it failed only by being
 * stopped (the clock or memory), never by a wrong output: no evidence that the program is wrong.
 */
export type ScoredVerdict =
  | ({ ok: true; clocked?: true; stopped?: true } & Verdict)
  | { ok: false; code: ProblemCode; message: string };

export interface Episode {
  ok: true;
  seed: number;
  level: number;
  instance: Instance;
  reference: string;
  /** verify(instance, reference). */
  referenceVerdict: ScoredVerdict;
  /** One per requested response, in order. */
  verdicts: ScoredVerdict[];
  /** Wall time inside the isolate for [generate, solve, verify…], in ms. */
  ms: [number, number, number];
}
export interface EpisodeFailure {
  ok: false;
  seed: number;
  level: number;
  code: ProblemCode;
  message: string;
  /** generate, solve, verify or load. */
  fn: string;
}
export type EpisodeResult = Episode | EpisodeFailure;

export interface EpisodeRun {
  load: LoadInfo;
  episodes: EpisodeResult[];
  wallMs: number;
}

export interface EpisodeOptions {
  limits?: Partial<SandboxLimits>;
  fresh?: boolean;
  parallel?: boolean;
  /**
   * Whose episodes these are and when they are no longer wanted: the code kind's answer pool shares its workers by
   * owner and drops what a signal cancels.
   */
  owner?: string;
  signal?: AbortSignal;
}

export async function runEpisodes(
  pool: SandboxPool,
  source: string,
  requests: EpisodeRequest[],
  { owner: _owner, signal: _signal, ...options }: EpisodeOptions = {},
): Promise<EpisodeRun> {
  const calls = requests.map((r) => ({
    op: 'episode' as const,
    seed: r.seed,
    level: r.level,
    responses: r.responses ?? [],
  }));
  // Each result becomes an episode as its chunk arrives (the call carries the request's seed, level and responses).
  const run = await pool.run({ source, calls, ...options }, (result, call) => toEpisode(call, result));
  return { load: run.load, episodes: run.results, wallMs: run.wallMs };
}

/** A raw result checked against the contract: an episode, or a failure with a stable code. */
export function toEpisode(request: EpisodeRequest, result: CallResult): EpisodeResult {
  const { seed, level } = request;
  if (!result.ok) return { ok: false, seed, level, code: result.code, message: result.message, fn: result.fn };
  const value = result.value as EpisodeValue | null;
  const expected = 1 + (request.responses?.length ?? 0);
  if (
    value === null ||
    typeof value !== 'object' ||
    !Array.isArray(value.verdicts) ||
    value.verdicts.length !== expected
  ) {
    return {
      ok: false,
      seed,
      level,
      code: 'E_PROTOCOL',
      message: 'the sandbox returned a malformed episode',
      fn: 'call',
    };
  }
  // The common case is checked by hand (the same rules as the schemas); zod runs only to word a violation.
  let instance = value.instance as Instance;
  if (!isInstance(instance)) {
    const parsed = InstanceSchema.safeParse(instance);
    if (!parsed.success)
      return {
        ok: false,
        seed,
        level,
        code: 'E_INSTANCE',
        message: describeIssues(parsed.error).join('; '),
        fn: 'generate',
      };
    instance = parsed.data;
  }
  // A prompt keeps the text contract on every call (contract/text.ts): no control character, well-formed, NFC.
  const problem = textProblem(instance.prompt, 'prompt', true);
  if (problem)
    return {
      ok: false,
      seed,
      level,
      code: problem.code,
      message: `generate returned a prompt that ${problem.message.replace(/^prompt /, '')}`,
      fn: 'generate',
    };
  const reference = value.reference;
  if (!isReference(reference)) {
    const parsed = ReferenceSchema.safeParse(reference);
    if (!parsed.success)
      return {
        ok: false,
        seed,
        level,
        code: 'E_REFERENCE',
        message: describeIssues(parsed.error).join('; '),
        fn: 'solve',
      };
  }
  const verdicts: ScoredVerdict[] = [];
  for (let i = 1; i < expected; i++) verdicts.push(checkVerdict(value.verdicts[i] as RawVerdict));
  return {
    ok: true,
    seed,
    level,
    instance,
    reference: reference as string,
    referenceVerdict: checkVerdict(value.verdicts[0] as RawVerdict),
    verdicts,
    ms: Array.isArray(value.ms) ? value.ms : [0, 0, 0],
  };
}

const NOT_BLANK = /\S/; // \s is the whitespace String.prototype.trim removes

/** InstanceSchema's rules without zod: a plain object whose prompt is a non-blank string within the limit. */
function isInstance(value: unknown): value is Instance {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prompt = (value as { prompt?: unknown }).prompt;
  return typeof prompt === 'string' && prompt.length <= CONTRACT_LIMITS.maxPromptChars && NOT_BLANK.test(prompt);
}

/** ReferenceSchema's rules without zod. */
function isReference(value: unknown): value is string {
  return typeof value === 'string' && value.length <= CONTRACT_LIMITS.maxReferenceChars && NOT_BLANK.test(value);
}

const inRange = (x: unknown): x is number => typeof x === 'number' && x >= 0 && x <= 1;

/** A verdict that VerifyResultSchema accepts as it is: a score in [0, 1], or { score, feedback? } with nothing else. */
function plainVerdict(value: unknown): ScoredVerdict | null {
  if (inRange(value)) return { ok: true, score: value };
  if (value === null || typeof value !== 'object') return null;
  const { score, feedback } = value as { score?: unknown; feedback?: unknown };
  if (!inRange(score)) return null;
  if (feedback === undefined) return { ok: true, score };
  return typeof feedback === 'string' && feedback.length <= CONTRACT_LIMITS.maxFeedbackChars
    ? { ok: true, score, feedback }
    : null;
}

/** A verdict from inside the isolate, checked: failures keep only a guest code, successes must match the contract. */
export function checkVerdict(raw: RawVerdict): ScoredVerdict {
  if (raw === null || typeof raw !== 'object')
    return { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed verdict' };
  if (!raw.ok)
    return {
      ok: false,
      code: HOST_VERDICTS.has(raw) ? raw.code : guestCode(raw.code),
      message: typeof raw.message === 'string' ? raw.message : '',
    };
  const fast = plainVerdict(raw.value);
  if (fast) return fast;
  try {
    return { ok: true, ...toVerdict(raw.value) };
  } catch (error) {
    const detail = error instanceof z.ZodError ? describeIssues(error).join('; ') : String(error);
    return {
      ok: false,
      code: 'E_SCORE',
      message: `verify returned ${JSON.stringify(raw.value)?.slice(0, 200)}: ${detail}`,
    };
  }
}

/** The score of a verdict, with failures counted as 0. */
export function scoreOf(verdict: ScoredVerdict | undefined): number {
  return verdict?.ok ? verdict.score : 0;
}
