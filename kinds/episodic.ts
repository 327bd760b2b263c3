// The episodic kind (contract v2): reset, then tool calls through step, scored on the final state. An episode
// here is the reference rollout (act) shown as a single-turn episode: the prompt and tools are what the
// policy sees, the reference is the action log as JSON, and a response is an action log replayed.
import { EPISODIC_SEEDS_DIR } from '../contract/paths.js';
import { parseEpisodicMeta, episodicMetaProblems, type EpisodicMeta } from '../contract/episodic.js';
import type { Episode, EpisodeRequest, EpisodeResult, ScoredVerdict } from '../sandbox/episodes.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { runRollouts, type RolloutRequest, type RolloutResult } from '../sandbox/rollouts.js';
import { EPISODIC_PROBE_FAMILIES, type EnvKind } from './contract.js';

/** A response to an episodic instance: a JSON array of actions, replayed from reset; anything else is no action. */
export function actionsOf(response: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(response);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The meta of an episodic module, read through the sandbox; null when it breaks the contract. */
export async function episodicMeta(pool: SandboxPool, source: string): Promise<EpisodicMeta | null> {
  const load = await pool.load(source);
  return load.ok ? parseEpisodicMeta(load.meta) : null;
}

/** What the policy sees of an episodic module: its tools, one line each. */
export function toolLines(tools: ReadonlyArray<{ name: string; description: string }>): string {
  return tools.map((t) => `${t.name}: ${t.description}`).join('\n');
}

const verdictOf = (r: RolloutResult): ScoredVerdict =>
  r.ok
    ? { ok: true, score: r.score, ...(r.feedback !== undefined ? { feedback: r.feedback } : {}) }
    : { ok: false, code: r.code, message: r.message };

export const episodic: EnvKind = {
  name: 'episodic',
  label: 'episodic',
  contract: 'episodic (contract v2: reset, step, score, act)',
  rollouts: true,
  contractVersion: 2,
  architectAsk: 'Propose episodic specs only: every spec has its episodic part filled in.',
  claims: (meta) => meta !== null && typeof meta === 'object' && (meta as { kind?: unknown }).kind === 'episodic',
  exports: { meta: 'object', reset: 'function', step: 'function', score: 'function', act: 'function' },
  checkMeta: (raw) => {
    const problems = episodicMetaProblems(raw);
    const meta = problems.length === 0 ? parseEpisodicMeta(raw) : null;
    return meta ? { meta, problems } : { problems };
  },
  runEpisodes: async (pool, source, requests, options = {}) => {
    const started = performance.now();
    const load = await pool.load(source, options.limits);
    const meta = load.ok ? parseEpisodicMeta(load.meta) : null;
    if (!meta) {
      const message = load.ok ? 'meta does not match contract v2' : load.message;
      return {
        load,
        wallMs: 0,
        episodes: requests.map((r) => ({
          ok: false,
          seed: r.seed,
          level: r.level,
          code: load.ok ? 'E_META' : load.code,
          message,
          fn: 'load',
        })),
      };
    }
    const calls: RolloutRequest[] = requests.flatMap((r) => [
      { seed: r.seed, level: r.level, policy: { type: 'act' as const } },
      ...(r.responses ?? []).map((response) => ({
        seed: r.seed,
        level: r.level,
        policy: { type: 'replay' as const, actions: actionsOf(response) },
      })),
    ]);
    const run = await runRollouts(pool, source, meta, calls, options);
    let at = 0;
    const episodes = requests.map((r): EpisodeResult => {
      const reference = run.rollouts[at++] as RolloutResult;
      const verdicts = (r.responses ?? []).map(() => verdictOf(run.rollouts[at++] as RolloutResult));
      return toEpisode(r, reference, verdicts, meta);
    });
    return { load: run.load, episodes, wallMs: performance.now() - started };
  },
  probeFamilies: EPISODIC_PROBE_FAMILIES,
  behaviour: (episode) => ({ text: episodicText(episode.instance), reference: episode.reference }),
  exportable: false,
  exportView: (instance) => ({ prompt: episodicText(instance) }),
  prompts: { generator: 'generator-episodic', repair: 'repair-episodic', reviewer: 'reviewer-episodic' },
  architectTokens: 1000,
  sampleLimits: {
    standard: { samples: 4, chars: 4000, observationChars: 300, transcriptChars: 5000 },
    compact: { samples: 2, chars: 1500, observationChars: 200, transcriptChars: 2000 },
  },
  seeds: { dir: EPISODIC_SEEDS_DIR, library: true, slow: true },
  mixed: true,
};

/** The prompt with the tools below it: the whole text an episodic policy starts from. */
function episodicText(instance: Episode['instance']): string {
  const tools = Array.isArray(instance.tools) ? (instance.tools as Array<{ name: string; description: string }>) : [];
  return tools.length > 0 ? `${instance.prompt}\n\nTools:\n${toolLines(tools)}` : instance.prompt;
}

/**
 * The reference rollout as an episode: a failure when act does not finish with a score of 1 is left to the validator.
 */
export function toEpisode(
  request: EpisodeRequest,
  reference: RolloutResult,
  verdicts: ScoredVerdict[],
  meta: EpisodicMeta,
): EpisodeResult {
  if (!reference.ok) return reference;
  return {
    ok: true,
    seed: request.seed,
    level: request.level,
    instance: { prompt: reference.prompt ?? '', tools: meta.tools },
    reference: JSON.stringify(reference.actions),
    referenceVerdict:
      reference.end === 'done' && reference.rejected.length === 0
        ? verdictOf(reference)
        : {
            ok: true,
            score: 0,
            feedback: `the reference policy ended by ${reference.end} after ${reference.turns} turns`,
          },
    verdicts,
    ms: [reference.ms[0] ?? 0, (reference.ms[1] ?? 0) + (reference.ms[2] ?? 0), reference.ms[3] ?? 0],
  };
}

export type { EpisodicMeta };
