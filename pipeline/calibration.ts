// Solver calibration: sample k solver responses per level, score them in the sandbox, and keep the levels whose pass
// rate falls in the learnable band (where a trainer's curriculum starts).
import type { LlmClient } from '../agents/llm/contract.js';
import { isLlmError, LlmError } from '../agents/llm/errors.js';
import { runEpisodes, scoreOf, type EpisodeRequest } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';

export interface CalibrationOptions {
  /** Samples (instances, seeds 0..k-1) per level: k. */
  samplesPerLevel: number;
  /** The learnable band of pass rates, inclusive at both ends. */
  band: [number, number];
  /** Solver calls in flight at once. */
  concurrency: number;
  /** Output token cap of each solver call. */
  maxTokens: number;
}

export const DEFAULT_CALIBRATION_OPTIONS: CalibrationOptions = {
  samplesPerLevel: 4,
  band: [0.1, 0.9],
  concurrency: 4,
  maxTokens: 2048,
};

export interface CalibrationCallOptions {
  /** The candidate the solver calls are accounted to. */
  candidateId?: string;
  signal?: AbortSignal;
}

export interface CalibrationLevel {
  level: number;
  samples: number;
  /** Share of samples scoring ≥ 1. */
  passRate: number;
  meanScore: number;
  /** Samples that failed before they could be scored (solver or episode errors), counted as score 0. */
  errors: number;
}

/** A sample that scored 0 because it could not be produced or scored. */
export interface CalibrationError {
  level: number;
  seed: number;
  /** 'solver': the LLM call failed; 'episode': generate or verify failed in the sandbox. */
  source: 'solver' | 'episode';
  code: string;
  message: string;
}

export interface Calibration {
  curve: CalibrationLevel[];
  /** Levels whose pass rate is within the band, inclusive. */
  learnableLevels: number[];
  /** At least one learnable level. */
  admitted: boolean;
  /** The lowest learnable level: where a trainer's curriculum starts. */
  entryLevel: number | null;
  /** Solver calls made (failed ones included). */
  calls: number;
  errors: CalibrationError[];
  /** The solver's model, as the client names it. */
  model: string;
  samplesPerLevel: number;
  band: [number, number];
}

interface Sample {
  level: number;
  seed: number;
  prompt: string | null;
  response: string | null;
}

/**
 * Calibrates `source` (an environment module with `levels` levels) against `solver`. Solver failures other
 * than E_LLM_BUDGET / E_LLM_CANCELLED count as failed samples; those two stop new calls, let the calls in
 * flight finish, and are rethrown.
 */
export async function calibrate(
  solver: LlmClient,
  pool: SandboxPool,
  source: string,
  levels: number,
  options: Partial<CalibrationOptions> = {},
  callOptions: CalibrationCallOptions = {},
): Promise<Calibration> {
  const opts: CalibrationOptions = { ...DEFAULT_CALIBRATION_OPTIONS, ...options };
  const k = opts.samplesPerLevel;
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`samplesPerLevel must be a positive integer, got ${k}`);
  if (!Number.isInteger(levels) || levels < 1) throw new RangeError(`levels must be a positive integer, got ${levels}`);
  const [low, high] = opts.band;
  if (!(low <= high)) throw new RangeError(`band must be [low, high] with low <= high, got [${low}, ${high}]`);
  const concurrency = Math.max(1, Math.floor(opts.concurrency));

  const errors: CalibrationError[] = [];
  const requests: EpisodeRequest[] = [];
  for (let level = 1; level <= levels; level++) for (let seed = 0; seed < k; seed++) requests.push({ seed, level });

  // 1. The instances (one sandbox run for every level).
  const generated = await runEpisodes(pool, source, requests, { parallel: true });
  const samples: Sample[] = generated.episodes.map((episode) => {
    if (episode.ok)
      return { level: episode.level, seed: episode.seed, prompt: episode.instance.prompt, response: null };
    errors.push({
      level: episode.level,
      seed: episode.seed,
      source: 'episode',
      code: episode.code,
      message: episode.message,
    });
    return { level: episode.level, seed: episode.seed, prompt: null, response: null };
  });

  // 2. The solver's responses, `concurrency` calls in flight.
  let calls = 0;
  let fatal: unknown = null;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (fatal === null && next < samples.length) {
      const sample = samples[next++] as Sample;
      if (sample.prompt === null) continue;
      if (callOptions.signal?.aborted) {
        fatal ??= new LlmError('E_LLM_CANCELLED', 'calibration cancelled before the solver call', {
          cause: callOptions.signal.reason,
        });
        return;
      }
      calls++;
      try {
        const response = await solver.complete({
          messages: [{ role: 'user', content: sample.prompt }],
          maxTokens: opts.maxTokens,
          seed: sample.seed,
          purpose: 'solver',
          ...(callOptions.candidateId !== undefined ? { candidateId: callOptions.candidateId } : {}),
          ...(callOptions.signal ? { signal: callOptions.signal } : {}),
        });
        sample.response = response.text;
      } catch (error) {
        if (isLlmError(error, 'E_LLM_BUDGET') || isLlmError(error, 'E_LLM_CANCELLED') || !isLlmError(error)) {
          fatal ??= error;
          return;
        }
        errors.push({
          level: sample.level,
          seed: sample.seed,
          source: 'solver',
          code: error.code,
          message: error.message,
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, samples.length) }, worker));
  if (fatal !== null) throw fatal;

  // 3. Score every response (one sandbox run for every level): each episode regenerates its instance from the seed.
  const answered = samples.filter((s): s is Sample & { response: string } => s.response !== null);
  const scores = new Map<string, number>();
  if (answered.length > 0) {
    const scored = await runEpisodes(
      pool,
      source,
      answered.map((s) => ({ seed: s.seed, level: s.level, responses: [s.response] })),
      { parallel: true },
    );
    scored.episodes.forEach((episode, i) => {
      const sample = answered[i] as Sample;
      if (!episode.ok) {
        errors.push({
          level: sample.level,
          seed: sample.seed,
          source: 'episode',
          code: episode.code,
          message: episode.message,
        });
        return;
      }
      const verdict = episode.verdicts[0];
      if (verdict && !verdict.ok)
        errors.push({
          level: sample.level,
          seed: sample.seed,
          source: 'episode',
          code: verdict.code,
          message: verdict.message,
        });
      scores.set(`${sample.level}/${sample.seed}`, scoreOf(verdict));
    });
  }

  // 4. The curve and the band.
  const curve: CalibrationLevel[] = [];
  for (let level = 1; level <= levels; level++) {
    const of = samples.filter((s) => s.level === level).map((s) => scores.get(`${s.level}/${s.seed}`) ?? 0);
    curve.push({
      level,
      samples: of.length,
      passRate: of.filter((score) => score >= 1).length / of.length,
      meanScore: of.reduce((a, b) => a + b, 0) / of.length,
      errors: errors.filter((e) => e.level === level).length,
    });
  }
  const learnableLevels = curve.filter((c) => c.passRate >= low && c.passRate <= high).map((c) => c.level);
  return {
    curve,
    learnableLevels,
    admitted: learnableLevels.length > 0,
    entryLevel: learnableLevels[0] ?? null,
    calls,
    errors,
    model: solver.model,
    samplesPerLevel: k,
    band: [low, high],
  };
}
