// Learned observation readers (validators/episodic/readers.ts): what predicts a decision without the task
// being done. A field of the observations or the prompt's lines mapped one-to-one onto the decision about its
// entity; the prompt's digits read as a value it does not spell out (a digit run at a place, as written or
// reversed); and the oracle policy, every question a read tool allows asked with every value, following the
// reply that marks the right one. Each is fitted on half the episodes and judged on the other half against
// chance (a rate with a confidence bound, per level and pooled, as the single-turn readers are judged).
import type { Rollout, RolloutRequest, RolloutResult } from '../../sandbox/rollouts.js';
import { actionsOf, finished, propsOf, type Action } from '../episodic/adversaries.js';
import {
  freshScreenCalls,
  nearMissCalls,
  repeatedScreen,
  responsiveKinds,
  screenCalls,
} from '../episodic/near-miss.js';
import { movingParts, moving, touchUntilFixed } from '../episodic/fixed-point.js';
import { axesOf, decisionsOf, type Axis } from '../episodic/adversaries-values.js';
import { errorPathCalls } from '../episodic/adversaries-undo.js';
import { askLog, askSamples, asksOf, askTrials, type Ask, type AskSample } from '../episodic/asks.js';
import { digitSamples, digitTrials, fieldSamples, fieldTrials, openingLog, type Replies } from '../episodic/readers.js';
import { joined, surveyLog } from '../episodic/opening.js';
import { arithmeticSamples, EPISODIC_ARITHMETIC } from '../episodic/arithmetic.js';
import { pickSamples, pickTrials } from '../episodic/selection.js';
import { knownPicks } from '../episodic/pick-universe.js';
import { readOpening } from '../episodic/differential.js';
import { judgeReaders } from '../readers.js';
import { replayOf, type EpisodicCheck } from './episodic.js';
import type { Finding, Trial } from './rules.js';

/** The replies to the k-th send of each of `n` calls each sent `times` times in a row. */
const sendOf = (replies: readonly string[], n: number, times: number, k: number): string[] =>
  Array.from({ length: n }, (_, i) => replies[times * i + k - 1] as string);

type Run = (requests: RolloutRequest[]) => Promise<RolloutResult[]>;

interface AskLog {
  of: number;
  axis: Axis;
  asks: Array<Ask | undefined>;
}

export const episodicReaders: EpisodicCheck = {
  name: 'episodic-readers',
  codes: ['E_ANSWER_LEAK'],
  kinds: ['episodic'],
  plan(ctx) {
    const refs = ctx.refs as Rollout[];
    const axes = axesOf(ctx.meta, refs)
      .filter((a) => refs.some((r) => decisionsOf(r, a).length > 0))
      .slice(0, 2);
    const perLevel = new Map<number, number>();
    const logs: AskLog[] = [];
    refs.forEach((r, of) => {
      const k = perLevel.get(r.level) ?? 0;
      perLevel.set(r.level, k + 1);
      if (k >= ctx.options.readerEpisodesPerLevel || !finished(r)) return;
      const finish = actionsOf(r).at(-1)?.tool ?? '';
      for (const axis of axes) {
        const decisions = decisionsOf(r, axis).slice(0, Math.floor((ctx.meta.maxTurns - 1) / axis.values.length));
        const asks = asksOf(ctx.meta, r, axis, decisions, finish);
        for (const tool of [...new Set(asks.flatMap((a) => a.map((x) => x.tool)))].slice(0, 2))
          logs.push({ of, axis, asks: asks.map((a) => a.find((x) => x.tool === tool)) });
      }
    });
    // Every episode's opening (each listing, each read of an entity decided about, then each tool's error paths:
    // calls naming no entity, refused ones last), whose replies the field readers read besides the reference's own.
    const categorical = axesOf(ctx.meta, refs);
    const openings = refs.map((r) => {
      const limit = Math.min(ctx.options.readerOpeningCalls, ctx.meta.maxTurns - 1);
      const errors = errorPathCalls(ctx.meta, r, { limit: Math.min(ctx.options.readerErrorCalls, limit) });
      return [...openingLog(ctx.meta, r, categorical, limit - errors.length), ...errors];
    });
    const opened = refs.flatMap((r, i) => ((openings[i] as unknown[]).length > 0 ? [i] : []));
    // The screen of the world's fuzzy paths (near-miss.ts): on a few episodes a level, the first id call sent as
    // an unknown id and as a near miss of every kind of the family; the kinds answered otherwise than the
    // unknown id are sent for every id of every opened episode once the batch is back (one replay each).
    const maxLength = (tool: string, arg: string) => propsOf(ctx.meta, tool)[arg]?.maxLength;
    // Each is played from both states a policy can choose (redteam-trust6 H3): once the entity was touched (its call
    // as itself first), and before, with the listings sent first and without (near misses of ids not yet named, the
    // kinds turned per episode).
    // And each screen again with every call sent `readerScreenTouches` times in a row (redteam-trust7 I2: a probe's
    // own history is state), the fresh one planned in the room that leaves; a near miss whose reply or state still
    // moves at the last send is sent more (fixed-point.ts).
    const screened = new Map<number, number>();
    const touches = Math.max(1, ctx.options.readerScreenTouches);
    const screens = opened.flatMap((i) => {
      const r = refs[i] as Rollout;
      const k = screened.get(r.level) ?? 0;
      // A level whose episodes to screen are chosen has no more: its screens are not built.
      if (k >= ctx.options.readerScreenPerLevel) return [];
      const calls = actionsOf(r).slice(0, -1);
      const fresh = (limit: number) =>
        [false, true].map((listed) =>
          freshScreenCalls(calls, maxLength, {
            limit,
            offset: [...screened.values()].reduce((a, b) => a + b, 0),
            entities: ctx.options.readerFreshScreenEntities,
            listed,
          }),
        );
      const limit = ctx.meta.maxTurns - 1;
      const once = [screenCalls(calls, maxLength), ...fresh(limit)].map((s) => ({ ...s, base: s, times: 1 }));
      const again =
        touches < 2
          ? []
          : [screenCalls(calls, maxLength), ...fresh(Math.floor(limit / touches))].map((s) => ({
              ...repeatedScreen(s, touches, limit),
              base: s,
              times: touches,
            }));
      const all = [...once, ...again].filter((s) => s.log.length > 0);
      if (all.length === 0) return [];
      screened.set(r.level, k + 1);
      return all.map((s) => ({ of: i, ...s }));
    });
    // The repeated screens' near misses whose reply or state still moves at the last send, sent more: each probe a
    // part of its screen that moves, as many as fit the episode sent `touchBound` times, and the strings the reference
    // sends (a reply naming them is no fuzzy path).
    const screensUntilFixed = (from: number, outcomes: readonly RolloutResult[], run: Run) => {
      const room = Math.floor((ctx.meta.maxTurns - 1) / Math.max(1, ctx.options.touchBound));
      const pending = screens.flatMap((s, k) => {
        const r = outcomes[logs.length + opened.length + k];
        if (from < 2 || s.times !== from) return [];
        const real = actionsOf(refs[s.of] as Rollout).flatMap((a) => Object.values(a.args).map(String));
        const parts = movingParts(s.base, room, (i) => moving(r, [from * i, from]));
        return parts.map((part) => ({
          of: s.of,
          part,
          real,
          at: (times: number) => repeatedScreen(part, times, ctx.meta.maxTurns - 1),
        }));
      });
      return touchUntilFixed(pending, {
        from,
        bound: ctx.options.touchBound,
        play: (p, times) => replayOf(refs[p.of] as Rollout, p.at(times).log, { observations: true, hashes: true }),
        moves: (p, times, r) => p.part.kinds.some((kind, i) => kind !== null && moving(r, [times * i, times])),
        run,
      });
    };
    const requests: RolloutRequest[] = [
      ...logs.map((l) => replayOf(refs[l.of] as Rollout, askLog(l.asks, l.axis), { observations: true })),
      ...opened.map((i) => replayOf(refs[i] as Rollout, openings[i] as unknown[], { observations: true })),
      ...screens.map((s) => replayOf(refs[s.of] as Rollout, s.log, { observations: true, hashes: s.times > 1 })),
    ];
    const o = ctx.stage.options;
    const rate = (policy: string, trials: { level: Trial[]; pooled: Trial[] }, evidence: () => unknown): Finding[] => [
      {
        rule: 'rate',
        code: 'E_ANSWER_LEAK',
        check: 'episodic-readers',
        policy,
        trials: trials.level,
        tolerance: { level: ctx.options.readerLevelTolerance },
        z: ctx.options.readerZ,
        minTrials: o.leakMinLevelSamples,
        evidence,
      },
      {
        rule: 'rate',
        code: 'E_ANSWER_LEAK',
        check: 'episodic-readers',
        policy,
        trials: trials.pooled,
        tolerance: { pooled: ctx.options.readerPooledTolerance },
        z: ctx.options.readerZ,
        minTrials: ctx.options.readerMinSamples,
        evidence,
      },
    ];
    return {
      requests,
      async judge(outcomes, tools) {
        const findings: Finding[] = [];
        const metrics: Record<string, unknown> = {};
        // The kinds answered otherwise; those answered so only when asked again are sent for every id that often.
        const answered = (times: number) =>
          screens.flatMap((s, k) => {
            const r = outcomes[logs.length + opened.length + k];
            const real = actionsOf(refs[s.of] as Rollout).flatMap((a) => Object.values(a.args).map(String));
            return s.times === times && r?.ok ? responsiveKinds(s, r.observations ?? [], real) : [];
          });
        const fuzzy = [...new Set(answered(1))].slice(0, ctx.options.readerFuzzyKinds);
        // Each kind answered so only when asked again, with the fewest sends that showed it.
        const asked = new Map<string, number>();
        const note = (kinds: readonly string[], times: number) => {
          for (const kind of kinds)
            if (!fuzzy.includes(kind)) asked.set(kind, Math.min(times, asked.get(kind) ?? Number.POSITIVE_INFINITY));
        };
        note(touches > 1 ? answered(touches) : [], touches);
        // A screen sent more is judged at each send: its k-th replies against its controls' k-th.
        const resent = await screensUntilFixed(touches, outcomes, tools.run);
        for (const { probe, times, outcome } of resent) {
          const replies = outcome.observations ?? [];
          for (let k = 1; k <= times; k++)
            note(responsiveKinds(probe.part, sendOf(replies, probe.part.log.length, times, k), probe.real), k);
        }
        metrics['screens sent more'] = resent.map((r) => r.times);
        const again = [...asked].slice(0, ctx.options.readerFuzzyKinds - fuzzy.length);
        const limit = Math.min(ctx.options.readerOpeningCalls, ctx.meta.maxTurns - 1);
        const misses = opened.map((i) => {
          const calls = actionsOf(refs[i] as Rollout).slice(0, -1);
          return [
            ...(fuzzy.length === 0 ? [] : nearMissCalls(calls, maxLength, fuzzy)),
            ...again.flatMap(([kind, times]) => nearMissCalls(calls, maxLength, [kind], times)),
          ].slice(0, limit);
        });
        // The survey (opening.ts) of tools no entity's values fill, with the values the texts and replies give.
        const surveys = opened.map((i, k) => {
          const r = outcomes[logs.length + k];
          return surveyLog(ctx.meta, refs[i] as Rollout, categorical, (r?.ok && r.observations) || [], limit);
        });
        const parts = [misses, surveys].flatMap((calls) =>
          opened.flatMap((i, k) =>
            (calls[k] as Action[]).length === 0 ? [] : [{ i, k, calls: calls[k] as Action[] }],
          ),
        );
        const more = await tools.run(parts.map((p) => replayOf(refs[p.i] as Rollout, p.calls, { observations: true })));
        metrics['fuzzy near misses'] = [...fuzzy, ...again.map(([kind, times]) => `${kind} (asked ${times} times)`)];
        // Fields of the lines that name each decided entity, one map per axis.
        const opening: Array<Replies | undefined> = [];
        opened.forEach((i, k) => {
          const r = outcomes[logs.length + k];
          const mine = parts.flatMap((p, j) => (p.k === k ? [{ calls: p.calls, out: more[j] }] : []));
          const { log, replies } = joined(openings[i] as Action[], r, mine);
          opening[i] = r?.ok ? readOpening(log, replies, refs[i] as Rollout) : undefined;
        });
        for (const axis of categorical) {
          const samples = fieldSamples(ctx.meta, refs, axis, opening);
          if (samples.length < ctx.options.readerMinSamples) continue;
          const t = fieldTrials(samples);
          metrics[`fields ${axis.tool}.${axis.arg}`] = t.rules;
          findings.push(
            ...rate(
              `a field read next to the entity (${axis.tool}.${axis.arg}), fitted on half the episodes and ` +
                `scored on the other half`,
              t,
              () => ({ axis: `${axis.tool}.${axis.arg}`, rules: t.rules }),
            ),
          );
        }
        // The entities a reference picks out of a listing, read off the listing's structure (rank, layout, counts).
        for (const [slot, samples] of await knownPicks(pickSamples(ctx.meta, refs, opening), refs, tools.run)) {
          if (samples.length < ctx.options.readerMinSamples) continue;
          const t = pickTrials(samples);
          metrics[`picks ${slot}`] = t.rules;
          findings.push(
            ...rate(
              `picking the entities of ${slot} by where and how the listings print them, fitted on half the ` +
                `episodes and scored on the other half`,
              t,
              () => ({ slot, rules: t.rules }),
            ),
          );
        }
        // The prompt's digits, or its numbers' simple arithmetic, read as a value it does not spell out, per argument
        // (judged as single-turn leaks).
        const leak = (
          policy: string,
          slot: string,
          t: { level: Trial[]; pooled: Trial[] },
          rules: unknown,
        ): Finding[] => {
          const evidence = () => ({ slot, rules });
          return [
            {
              rule: 'rate',
              code: 'E_ANSWER_LEAK',
              check: 'episodic-readers',
              policy,
              trials: t.level,
              tolerance: { level: o.leakLevelMaxRate },
              z: ctx.options.readerZ,
              minTrials: o.leakMinLevelSamples,
              evidence,
            },
            {
              rule: 'rate',
              code: 'E_ANSWER_LEAK',
              check: 'episodic-readers',
              policy,
              trials: t.pooled,
              tolerance: { pooled: o.leakMaxRate },
              z: ctx.options.readerZ,
              minTrials: ctx.options.readerMinSamples,
              evidence,
            },
          ];
        };
        for (const [slot, samples] of digitSamples(refs)) {
          if (samples.length < ctx.options.readerMinSamples) continue;
          const t = digitTrials(samples);
          metrics[`digits ${slot}`] = t.rules;
          findings.push(
            ...leak(
              `reading ${slot} off the prompt's digits, fitted on half the episodes and scored on the other half`,
              slot,
              t,
              t.rules,
            ),
          );
        }
        for (const [slot, samples] of arithmeticSamples(refs)) {
          const [j] = samples.length < ctx.options.readerMinSamples ? [] : judgeReaders(samples, [EPISODIC_ARITHMETIC]);
          if (!j) continue;
          metrics[`arithmetic ${slot}`] = j.rules.get(null);
          findings.push(
            ...leak(
              `computing ${slot} from the prompt's numbers (${j.family}), fitted on half the episodes and ` +
                `scored on the other half`,
              slot,
              j,
              j.rules.get(null),
            ),
          );
        }
        // The oracle policy: every question asked with every value, the reply that marks the right one followed.
        const byTool = new Map<string, AskSample[]>();
        logs.forEach((l, k) => {
          const r = outcomes[k];
          const key = `${l.axis.tool}.${l.axis.arg} by ${l.asks.find((a) => a)?.tool ?? ''}`;
          const decisions = decisionsOf(refs[l.of] as Rollout, l.axis);
          byTool.set(key, [
            ...(byTool.get(key) ?? []),
            ...(r?.ok ? askSamples((refs[l.of] as Rollout).level, l.asks, decisions, l.axis, r.observations) : []),
          ]);
        });
        for (const [key, samples] of byTool) {
          if (samples.length < ctx.options.readerMinSamples) continue;
          const t = askTrials(samples);
          metrics[`asks ${key}`] = t.marks;
          findings.push(
            ...rate(
              `asking ${key} about every value and following the reply that marks the right one, ` +
                `fitted on half the episodes`,
              t,
              () => ({ asks: key, marks: t.marks.map((m) => m.slice(0, 120)) }),
            ),
          );
        }
        return { findings, metrics };
      },
    };
  },
};
