// The single-turn kind (contract v1): generate an instance, the policy answers once, verify scores the
// answer; every probe family applies; the prompt is what the policy sees and what an export row shows.
import { SEEDS_DIR } from '../contract/paths.js';
import { MetaSchema, describeIssues } from '../contract/schema.js';
import { metaTextProblems } from '../contract/text.js';
import { runEpisodes } from '../sandbox/episodes.js';
import { PROBE_FAMILIES, type EnvKind } from './contract.js';

export const singleTurn: EnvKind = {
  name: 'single',
  label: 'single-turn',
  contract: 'single-turn (contract v1: generate, solve, verify)',
  rollouts: false,
  contractVersion: 1,
  architectAsk: 'Propose single-turn specs only (the requested format has no kind and no episodic part).',
  claims: (meta) => {
    const kind = meta !== null && typeof meta === 'object' ? (meta as { kind?: unknown }).kind : undefined;
    return kind === undefined || kind === 'single-turn';
  },
  checkMeta: (raw) => {
    const parsed = MetaSchema.safeParse(raw);
    if (!parsed.success)
      return { problems: describeIssues(parsed.error).map((message) => ({ code: 'E_META' as const, message })) };
    const text = metaTextProblems(raw);
    return text.length > 0 ? { problems: text } : { meta: parsed.data, problems: [] };
  },
  exports: { meta: 'object', generate: 'function', solve: 'function', verify: 'function' },
  runEpisodes,
  probeFamilies: PROBE_FAMILIES,
  behaviour: (episode) => ({ text: episode.instance.prompt, reference: episode.reference }),
  exportable: true,
  exportView: (instance) => ({ prompt: instance.prompt }),
  prompts: { generator: 'generator', repair: 'repair', reviewer: 'reviewer' },
  architectTokens: 450,
  sampleLimits: {
    standard: { samples: 6, chars: 4000, observationChars: 0, transcriptChars: 0 },
    compact: { samples: 3, chars: 1500, observationChars: 0, transcriptChars: 0 },
  },
  seeds: { dir: SEEDS_DIR, library: true, slow: false },
  mixed: true,
};
