// Typed episodes on top of the raw sandbox: generate -> solve -> verify runs whose values are checked
// against the contract, so callers (validator, sample, serve) see instances, references and verdicts
// or a failure with a stable code, never unchecked guest data.
import type { ProblemCode } from '../contract/codes.js';
import { InstanceSchema, ReferenceSchema, describeIssues, toVerdict, type Instance, type Verdict } from '../contract/schema.js';
import type { SandboxPool } from './pool.js';
import { guestCode, type CallResult, type EpisodeValue, type LoadInfo, type RawVerdict, type SandboxLimits } from './protocol.js';
import { z } from 'zod';

export interface EpisodeRequest {
  seed: number;
  level: number;
  /** Responses to score besides the reference. */
  responses?: string[];
}

/** A verdict, or the reason verify failed on that response. */
export type ScoredVerdict = ({ ok: true } & Verdict) | { ok: false; code: ProblemCode; message: string };

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
}

export async function runEpisodes(pool: SandboxPool, source: string, requests: EpisodeRequest[], options: EpisodeOptions = {}): Promise<EpisodeRun> {
  const calls = requests.map((r) => ({ op: 'episode' as const, seed: r.seed, level: r.level, responses: r.responses ?? [] }));
  const run = await pool.run({ source, calls, ...options });
  const episodes = run.results.map((result, i) => toEpisode(requests[i] as EpisodeRequest, result));
  return { load: run.load, episodes, wallMs: run.wallMs };
}

/** A raw result checked against the contract: an episode, or a failure with a stable code. */
export function toEpisode(request: EpisodeRequest, result: CallResult): EpisodeResult {
  const { seed, level } = request;
  if (!result.ok) return { ok: false, seed, level, code: result.code, message: result.message, fn: result.fn };
  const value = result.value as EpisodeValue | null;
  const expected = 1 + (request.responses?.length ?? 0);
  if (value === null || typeof value !== 'object' || !Array.isArray(value.verdicts) || value.verdicts.length !== expected) {
    return { ok: false, seed, level, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed episode', fn: 'call' };
  }
  const instance = InstanceSchema.safeParse(value.instance);
  if (!instance.success) return { ok: false, seed, level, code: 'E_INSTANCE', message: describeIssues(instance.error).join('; '), fn: 'generate' };
  const reference = ReferenceSchema.safeParse(value.reference);
  if (!reference.success) return { ok: false, seed, level, code: 'E_REFERENCE', message: describeIssues(reference.error).join('; '), fn: 'solve' };
  const [referenceVerdict, ...verdicts] = value.verdicts.map(checkVerdict);
  return { ok: true, seed, level, instance: instance.data, reference: reference.data, referenceVerdict: referenceVerdict as ScoredVerdict, verdicts, ms: Array.isArray(value.ms) ? value.ms : [0, 0, 0] };
}

/** A verdict from inside the isolate, checked: failures keep only a guest code, successes must match the contract. */
export function checkVerdict(raw: RawVerdict): ScoredVerdict {
  if (raw === null || typeof raw !== 'object') return { ok: false, code: 'E_PROTOCOL', message: 'the sandbox returned a malformed verdict' };
  if (!raw.ok) return { ok: false, code: guestCode(raw.code), message: typeof raw.message === 'string' ? raw.message : '' };
  try {
    return { ok: true, ...toVerdict(raw.value) };
  } catch (error) {
    const detail = error instanceof z.ZodError ? describeIssues(error).join('; ') : String(error);
    return { ok: false, code: 'E_SCORE', message: `verify returned ${JSON.stringify(raw.value)?.slice(0, 200)}: ${detail}` };
  }
}

/** The score of a verdict, with failures counted as 0. */
export function scoreOf(verdict: ScoredVerdict | undefined): number {
  return verdict?.ok ? verdict.score : 0;
}
