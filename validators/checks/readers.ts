// Learned readers (readers.ts): whatever in the prompt predicts the answer (an encoding at a place, a relation
// of its numbers, an item of its lists, an option singled out by a feature) is fitted on half of each level's
// instances and judged on the other half against chance; multiple-choice levels are judged on more instances
// (a small edge needs them). It sends no responses: it reads prompts and references.
import type { Episode } from '../../sandbox/episodes.js';
import { choiceCases, OPTIONS } from '../choice-rules.js';
import { ARITHMETIC } from '../leak-derived.js';
import { ESTIMATES } from '../leak-estimates.js';
import { PLACES } from '../item-relations.js';
import { ITEMS } from '../leak-items.js';
import { LISTS } from '../leak-lists.js';
import { ENCODINGS } from '../leak.js';
import { judgeReaders, readerFindings, type ReaderFamily } from '../readers.js';
import type { SingleTurnCheck } from './single-turn.js';

/** The reader families, in the order their rules are reported. */
export const READERS: readonly ReaderFamily[] = [ENCODINGS, ARITHMETIC, LISTS, ITEMS, PLACES, ESTIMATES, OPTIONS];

export const readersCheck: SingleTurnCheck = {
  name: 'readers',
  codes: ['E_ANSWER_LEAK', 'E_ACCEPTS_GUESSING'],
  kinds: ['single'],
  plan(ctx) {
    return {
      requests: [],
      async judge() {
        const o = ctx.stage.options;
        const sample = ctx.stage.episodes;
        // Gated too: a rule may hold only where the prompt shows a word or a layout (one prompt shape in three).
        const judged = judgeReaders(
          sample,
          READERS.filter((f) => f !== OPTIONS),
          { minShare: o.leakGateMinShare, z: o.readerZ },
        );
        // Options: on every multiple-choice level, more instances (an informed rule's edge over 1/K is small).
        const choice = choiceCases(sample).filter(Boolean).length >= 0.8 * sample.length;
        if (choice) {
          const more = await Promise.all(
            [...ctx.byLevel].map(([level, episodes]) =>
              ctx.moreInstances(level, o.choiceSamplesPerLevel - episodes.length),
            ),
          );
          const all: Episode[] = [...ctx.byLevel.values()].flatMap((episodes, i) => [...episodes, ...(more[i] ?? [])]);
          judged.push(...judgeReaders(all, [OPTIONS]));
        }
        const tolerance = (family: string) =>
          family === OPTIONS.name
            ? { level: o.choiceGuessTolerance, pooled: o.choiceGuessTolerance }
            : { level: o.leakLevelMaxRate, pooled: o.leakMaxRate };
        const findings = [
          ...readerFindings(
            judged.filter((j) => j.family !== OPTIONS.name),
            tolerance,
            o.readerZ,
            o.leakMinLevelSamples,
          ),
          ...readerFindings(
            judged.filter((j) => j.family === OPTIONS.name),
            tolerance,
            o.guessZ,
            o.guessMinSamples,
          ),
        ];
        const metrics = Object.fromEntries(
          judged.map((j) => [
            j.family,
            Object.fromEntries([...j.rules].map(([level, rules]) => [level ?? 'all', rules])),
          ]),
        );
        return { findings, metrics };
      },
    };
  },
};
