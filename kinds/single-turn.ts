// The single-turn kind (contract v1): generate an instance, the policy answers once, verify scores the
// answer; every probe family applies; the prompt is what the policy sees and what an export row shows.
import { runEpisodes } from '../sandbox/episodes.js';
import { PROBE_FAMILIES, type EnvKind } from './contract.js';

export const singleTurn: EnvKind = {
  name: 'single-turn',
  claims: (meta) => {
    const kind = meta !== null && typeof meta === 'object' ? (meta as { kind?: unknown }).kind : undefined;
    return kind === undefined || kind === 'single-turn';
  },
  exports: { meta: 'object', generate: 'function', solve: 'function', verify: 'function' },
  runEpisodes,
  probeFamilies: PROBE_FAMILIES,
  behaviour: (episode) => ({ text: episode.instance.prompt, reference: episode.reference }),
  exportView: (instance) => ({ prompt: instance.prompt }),
};
